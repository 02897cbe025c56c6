public import Foundation

/// Validates XML documents against the repository's RELAX NG schemas with `xmllint` (Debian's
/// `libxml2-utils`), the reference tool CI also uses.
public enum XMLLint {
    /// The `xmllint` found on the `PATH`, if any.
    public static let executable: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").lazy
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent("xmllint") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Whether tests that run `xmllint` run. Always true in CI (`CI` set), which installs it:
    /// there a missing `xmllint` fails those tests instead of skipping them.
    public static var isAvailable: Bool {
        executable != nil || ProcessInfo.processInfo.environment["CI"] != nil
    }

    /// Runs `xmllint --noout --relaxng Schemas/<schema>` on `document`; returns its complaints
    /// (empty when the document is valid).
    public static func problems(validating document: [UInt8], against schema: String) throws -> [String] {
        guard let executable else { return ["xmllint is not installed (apt-get install libxml2-utils)"] }
        let directory = try TestPaths.makeTemporaryDirectory("xmllint")
        defer { try? FileManager.default.removeItem(at: directory) }
        let documentURL = directory.appendingPathComponent("document.xml")
        try Data(document).write(to: documentURL)
        let schemaPath = TestPaths.repositoryRoot.appendingPathComponent("Schemas").appendingPathComponent(schema).path
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--noout", "--relaxng", schemaPath, documentURL.path]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus != 0 else { return [] }
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
        return lines.isEmpty ? ["xmllint exited with status \(process.terminationStatus)"] : lines
    }
}
