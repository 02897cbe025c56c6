import Foundation

/// Expands the paths a user gives (files, folders, `-`) into the files to read.
enum InputPaths {
    /// File name endings read when a folder is given.
    static let contactExtensions: Set<String> = ["vcf", "vcard", "vcs", "json", "jcard", "xml", "xcard"]

    /// The files named by `paths`, folders expanded recursively (sorted, hidden entries skipped).
    /// Paths that do not exist are returned in `missing`.
    static func expand(_ paths: [String]) -> (files: [String], missing: [String]) {
        var files: [String] = []
        var missing: [String] = []
        let manager = FileManager.default
        for path in paths {
            if path == "-" { files.append(path); continue }
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                missing.append(path)
                continue
            }
            guard isDirectory.boolValue else { files.append(path); continue }
            var found: [String] = []
            let base = URL(fileURLWithPath: path)
            if let enumerator = manager.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey],
                                                   options: [.skipsHiddenFiles]) {
                for case let url as URL in enumerator where contactExtensions.contains(url.pathExtension.lowercased()) {
                    if url.pathExtension.lowercased() == "json" && !looksLikeJCard(url) { continue }
                    let relative = url.path.hasPrefix(base.path) ? String(url.path.dropFirst(base.path.count)) : url.path
                    found.append((path.hasSuffix("/") ? String(path.dropLast()) : path) + relative)
                }
            }
            files.append(contentsOf: found.sorted())
        }
        return (files, missing)
    }

    /// A `.json` file found in a folder is read only when it starts like jCard (`[`), so that
    /// other JSON files (labels, settings) are not reported as broken contacts.
    private static func looksLikeJCard(_ url: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 64)) ?? Data()
        return head.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 && $0 != 0xEF && $0 != 0xBB && $0 != 0xBF } == 0x5B
    }
}
