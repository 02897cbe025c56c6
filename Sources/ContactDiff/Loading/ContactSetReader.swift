import Foundation
import VCardKit
import VCardXML

/// Reads a ``ContactSet`` from a path: a file of vCard (2.1, 3.0, 4.0), jCard or xCard text
/// with any number of cards (the format is detected from the first bytes), or a folder of such
/// files — an address book folder included (its `.cardsync` folder and other hidden files are
/// skipped; the files are read as they are on disk, without opening the book).
///
/// ```swift
/// let set = try ContactSetReader.read(path: "~/contacts")
/// print(set.items.count, "cards")
/// ```
public enum ContactSetReader {
    /// The file name extensions read from a folder (compared ignoring case).
    public static let contactFileExtensions: Set<String> = ["vcf", "vcard", "json", "jcard", "xml", "xcard"]

    /// Reads the file or folder at `path`.
    /// - Throws: ``ContactDiffError`` — `missingInput` when nothing is at `path`, `io` when it
    ///   cannot be read, `invalidInput` when a single file holds no readable card.
    public static func read(path: String) throws(ContactDiffError) -> ContactSet {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ContactDiffError(code: .missingInput, message: "no such file or folder", path: path)
        }
        if isDirectory.boolValue { return try readFolder(path) }
        let set = try readFile(path, reportedAs: path)
        if set.items.isEmpty {
            let reason = set.diagnostics.first { $0.severity == .error }?.message ?? "holds no card"
            throw ContactDiffError(code: .invalidInput, message: reason, path: path)
        }
        return set
    }

    /// Reads cards held in memory, reported under `name`.
    public static func read(bytes: [UInt8], name: String) -> ContactSet {
        switch ContactFormat.detect(bytes.prefix(256)) {
        case .vcard:
            var parser = VCardParser(framingOnly: name)
            var items: [ContactSet.Item] = []
            // In chunks of 1 MiB: the parser copies what it is fed, and frames are collected as they come.
            var start = 0
            repeat {
                let end = min(start + (1 << 20), bytes.count)
                parser.feed(bytes[start..<end])
                while let frame = parser.nextFrame() { items.append(.frame(frame)) }
                start = end
            } while start < bytes.count
            parser.finish()
            while let frame = parser.nextFrame() { items.append(.frame(frame)) }
            return ContactSet(name: name, items: items, diagnostics: parser.takeDiagnostics())
        case .jcard, .xcard:
            let format = ContactFormat.detect(bytes.prefix(256))
            do {
                let result = format == .jcard ? try JCardReader.read(bytes, sourceName: name) : try XCardReader.read(bytes, sourceName: name)
                let items = result.cards.map { card in ContactSet.Item.card(card, origin: "\(name):\(card.location?.line ?? 1)") }
                return ContactSet(name: name, items: items, diagnostics: result.diagnostics)
            } catch {
                return ContactSet(name: name, items: [], diagnostics: [error.diagnostic ?? Diagnostic(
                    severity: .error, code: .init(rawValue: "invalid-input"), message: error.message,
                    location: SourceLocation(source: name, line: 1, column: 1))])
            }
        }
    }

    private static func readFile(_ path: String, reportedAs name: String) throws(ContactDiffError) -> ContactSet {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
        } catch {
            throw ContactDiffError(code: .io, message: "cannot read: \(error.localizedDescription)", path: path)
        }
        return read(bytes: [UInt8](data), name: name)
    }

    private static func readFolder(_ path: String) throws(ContactDiffError) -> ContactSet {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw ContactDiffError(code: .io, message: "cannot list the folder: \(error.localizedDescription)", path: path)
        }
        let files = names.filter { name in
            !name.hasPrefix(".") && contactFileExtensions.contains((name as NSString).pathExtension.lowercased())
        }.sorted()
        let folder = path.hasSuffix("/") ? String(path.dropLast()) : path
        let sets = Parallel.map(files, minimumPerWorker: 256) { name -> Result<ContactSet, ContactDiffError> in
            do throws(ContactDiffError) {
                return .success(try readFile(folder + "/" + name, reportedAs: name))
            } catch {
                return .failure(error)
            }
        }
        var result = ContactSet(name: path, items: [])
        for set in sets {
            switch set {
            case .success(let set):
                result.items += set.items
                result.diagnostics += set.diagnostics
            case .failure(let error):
                result.diagnostics.append(Diagnostic(severity: .error, code: .init(rawValue: "unreadable-file"), message: error.message,
                                                     location: SourceLocation(source: error.path ?? path, line: 1, column: 1)))
            }
        }
        return result
    }
}
