import Foundation

/// Finds the files of `Schemas/` (the xCard RELAX NG schemas, the JSON Schemas): they are the
/// single source of the rules the code checks, read at run time rather than copied into code.
///
/// Looked for, in order: `$CARDSYNC_SCHEMAS`; a `Schemas` folder beside the executable or in
/// any folder above it (a build inside the repository); `share/cardsync/Schemas` next to the
/// executable's `bin` folder (an installed cardsync).
enum SchemaFiles {
    static func path(_ name: String) -> String? {
        folder(holding: name).map { $0.appendingPathComponent(name).path }
    }

    /// The first folder of the search order that holds `name`.
    static func folder(holding name: String) -> URL? {
        let manager = FileManager.default
        var candidates: [URL] = []
        if let override = ProcessInfo.processInfo.environment["CARDSYNC_SCHEMAS"] {
            candidates.append(URL(fileURLWithPath: override))
        }
        var directory = ExecutablePath.current.deletingLastPathComponent()
        let binary = directory
        while directory.path != "/" {
            candidates.append(directory.appendingPathComponent("Schemas"))
            directory.deleteLastPathComponent()
        }
        candidates.append(binary.deletingLastPathComponent().appendingPathComponent("share/cardsync/Schemas"))
        return candidates.first { manager.fileExists(atPath: $0.appendingPathComponent(name).path) }
    }
}
