public import Foundation

/// Runs the built `cardsync` binary, for end-to-end tests.
public enum CLIRunner {
    /// What a run printed and how it ended.
    public struct Result: Sendable {
        public var status: Int32
        public var standardOutput: String
        public var standardError: String
        public var outputBytes: Data
    }

    /// The `cardsync` executable beside the test bundle (SwiftPM builds it with the tests).
    public static var executable: URL {
        if let override = ProcessInfo.processInfo.environment["CARDSYNC_BINARY"] { return URL(fileURLWithPath: override) }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("cardsync")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                return candidate
            }
            directory.deleteLastPathComponent()
        }
        return TestPaths.repositoryRoot.appendingPathComponent(".build/debug/cardsync")
    }

    /// Runs `cardsync` with `arguments`, feeding `input` on standard input.
    public static func run(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:],
                           in directory: URL? = nil) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        let inPipe = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inPipe
        try process.run()
        // Read both pipes concurrently so a large output cannot block the child.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.global().async { outData = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        group.enter()
        DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        if let input { inPipe.fileHandleForWriting.write(input) }
        try inPipe.fileHandleForWriting.close()
        process.waitUntilExit()
        group.wait()
        return Result(status: process.terminationStatus, standardOutput: String(decoding: outData, as: UTF8.self),
                      standardError: String(decoding: errData, as: UTF8.self), outputBytes: outData)
    }
}

extension CLIRunner {
    /// Whether ``runOnATerminal(_:standardOutput:in:)`` can run here: it needs util-linux's `script(1)`.
    public static var canRunOnATerminal: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/script") }

    /// Runs `cardsync ARGUMENTS` under `script(1)`, whose pseudo-terminal is the command's standard
    /// error (and its standard output, unless `standardOutput` names a file to write it to), with
    /// `TERM=xterm`; returns the exit status and what the terminal showed.
    public static func runOnATerminal(_ arguments: [String], standardOutput: URL? = nil,
                                      in directory: URL? = nil) throws -> (status: Int32, screen: String) {
        func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        var command = ([executable.path] + arguments).map(quoted).joined(separator: " ")
        if let standardOutput { command += " > " + quoted(standardOutput.path) }
        let script = Process()
        script.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        script.arguments = ["--quiet", "--return", "--command", command, "/dev/null"]
        if let directory { script.currentDirectoryURL = directory }
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm"
        script.environment = environment
        let output = Pipe()
        script.standardOutput = output
        script.standardError = FileHandle.nullDevice
        script.standardInput = FileHandle.nullDevice
        try script.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        script.waitUntilExit()
        return (script.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

/// Validates JSON documents against the repository's JSON Schemas with Python's `jsonschema`
/// (Draft 2020-12), the reference implementation CI also uses.
public enum SchemaValidator {
    /// Whether `python3 -c "import jsonschema"` works here. Always true in CI (`CI` set), where
    /// the schema checks are never skipped: without the package they fail, saying why.
    public static let isAvailable: Bool = {
        ProcessInfo.processInfo.environment["CI"] != nil || (try? runPython(["-c", "import jsonschema"]).status) == 0
    }()

    /// Validates `document` against `Schemas/<schema>`; returns the validator's complaints (empty when valid).
    public static func problems(validating document: Data, against schema: String) throws -> [String] {
        let directory = try TestPaths.makeTemporaryDirectory("schema")
        defer { try? FileManager.default.removeItem(at: directory) }
        let documentURL = directory.appendingPathComponent("document.json")
        try document.write(to: documentURL)
        let schemaPath = TestPaths.repositoryRoot.appendingPathComponent("Schemas").appendingPathComponent(schema).path
        let script = """
        import json, sys
        from jsonschema import Draft202012Validator
        schema = json.load(open(sys.argv[1]))
        Draft202012Validator.check_schema(schema)
        doc = json.load(open(sys.argv[2]))
        for error in Draft202012Validator(schema).iter_errors(doc):
            print("/".join(map(str, error.absolute_path)) + ": " + error.message)
        """
        let result = try runPython(["-c", script, schemaPath, documentURL.path])
        if result.status != 0 { return ["validator failed: " + result.standardError] }
        return result.standardOutput.split(separator: "\n").map(String.init)
    }

    private static func runPython(_ arguments: [String]) throws -> CLIRunner.Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLIRunner.Result(status: process.terminationStatus, standardOutput: String(decoding: outData, as: UTF8.self),
                                standardError: String(decoding: errData, as: UTF8.self), outputBytes: outData)
    }
}
