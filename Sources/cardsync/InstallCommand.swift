import ArgumentParser
import Foundation

/// `cardsync install`: puts this executable, its shell completions, its man page and the
/// schemas it checks against under a prefix (`~/.local` by default).
struct InstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Install this cardsync with shell completions and a man page.",
        discussion: """
            Copies the running executable to PREFIX/bin/cardsync and writes:
              PREFIX/share/bash-completion/completions/cardsync
              PREFIX/share/zsh/site-functions/_cardsync
              PREFIX/share/fish/vendor_completions.d/cardsync.fish
              PREFIX/share/man/man1/cardsync.1   (made from the commands' help)
              PREFIX/share/cardsync/Schemas/     (the schemas `validate` checks against)
            Each file is written whole and then moved into place, so a running cardsync is never \
            half replaced. The PREFIX defaults to $PREFIX, else ~/.local.

            Examples:
              swift build -c release --static-swift-stdlib -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors --product cardsync \
                && .build/release/cardsync install
              swift run -c release cardsync install
              cardsync install --prefix /usr/local
            """
    )

    @Option(help: ArgumentHelp("Where to install (bin/ and share/ below it).", valueName: "dir"))
    var prefix: String?

    func run() throws {
        let root = URL(fileURLWithPath: Self.expand(prefix ?? ProcessInfo.processInfo.environment["PREFIX"] ?? "~/.local"))
        do {
            let executable = ExecutablePath.current
            let installed = root.appendingPathComponent("bin/cardsync")
            if executable.standardizedFileURL.path != installed.standardizedFileURL.path {
                try Self.place(Data(contentsOf: executable), at: installed, executable: true)
            }
            let files: [(String, String)] = [
                ("share/bash-completion/completions/cardsync", CardSyncCommand.completionScript(for: .bash)),
                ("share/zsh/site-functions/_cardsync", CardSyncCommand.completionScript(for: .zsh)),
                ("share/fish/vendor_completions.d/cardsync.fish", CardSyncCommand.completionScript(for: .fish)),
                ("share/man/man1/cardsync.1", ManualPage.render(version: CardSyncVersion.current)),
            ]
            for (path, text) in files {
                try Self.place(Data(text.utf8), at: root.appendingPathComponent(path), executable: false)
            }
            var schemas = 0
            if let source = SchemaFiles.folder(holding: "cli-output.schema.json") {
                let target = root.appendingPathComponent("share/cardsync/Schemas")
                if source.standardizedFileURL.path != target.standardizedFileURL.path {
                    for name in try FileManager.default.contentsOfDirectory(atPath: source.path).sorted()
                    where name.hasSuffix(".json") || name.hasSuffix(".rng") {
                        try Self.place(Data(contentsOf: source.appendingPathComponent(name)), at: target.appendingPathComponent(name), executable: false)
                        schemas += 1
                    }
                }
            }
            print("installed cardsync \(CardSyncVersion.current) in \(root.path): bin/cardsync, completions for bash, zsh and fish, man page cardsync(1)"
                + (schemas > 0 ? ", \(schemas) schemas" : ""))
            let bin = root.appendingPathComponent("bin").path
            let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            if !path.contains(bin) {
                print("note: \(bin) is not on your PATH; add it, e.g. `export PATH=\"\(bin):$PATH\"` in your shell's profile")
            }
        } catch {
            StandardError.print("cardsync: error: cannot install into \(root.path): \(error.localizedDescription)")
            throw ExitStatus.ioError
        }
    }

    /// `~` and `~/…` expanded to the home folder.
    static func expand(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        let home = ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + path.dropFirst()
    }

    /// Writes `data` beside `url` and renames it over `url` (folders made as needed).
    static func place(_ data: Data, at url: URL, executable: Bool) throws {
        let manager = FileManager.default
        try manager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
        try data.write(to: temporary)
        try manager.setAttributes([.posixPermissions: executable ? 0o755 : 0o644], ofItemAtPath: temporary.path)
        if rename(temporary.path, url.path) != 0 {
            let reason = String(cString: strerror(errno))
            try? manager.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(url.path): \(reason)"])
        }
    }
}
