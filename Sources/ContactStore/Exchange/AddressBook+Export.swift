import Foundation
public import VCardKit
import VCardXML

/// The formats `export` writes.
public enum ExportFormat: String, Sendable, Hashable, CaseIterable {
    /// vCard 3.0 text.
    case vcard3
    /// vCard 4.0 text.
    case vcard4
    /// jCard (RFC 7095): a JSON array of cards.
    case jcard
    /// xCard (RFC 6351): one `<vcards>` document.
    case xcard

    /// The file name ending of the format.
    public var fileExtension: String {
        switch self {
        case .vcard3, .vcard4: "vcf"
        case .jcard: "json"
        case .xcard: "xml"
        }
    }
}

/// Where `export` writes.
public enum ExportDestination: Sendable, Hashable {
    /// One file holding every contact (written atomically), or standard output for `-`.
    case file(String)
    /// One file per contact in a folder, named after the contact's file.
    case split(String)
}

/// What an export wrote.
public struct ExportReport: Sendable {
    /// The contacts written.
    public var contacts = 0
    /// The files written.
    public var files: [String] = []
    /// Notes about the conversion: what the target version lacks, and how it was kept.
    public var notes: [Diagnostic] = []
}

extension AddressBook {
    /// Writes every live contact in `format`, to one file (or standard output) or one file per
    /// contact. A vCard written in its own version is copied byte for byte; others are converted
    /// without losing properties (``ExportReport/notes`` says what moved).
    ///
    /// ```swift
    /// try await book.exportContacts(as: .vcard4, to: .file("all.vcf"))
    /// ```
    /// - Parameters:
    ///   - format: the format written.
    ///   - destination: one file (or standard output), or a folder for one file per contact.
    ///   - progress: called after each contact file of the book, with the contacts of the files
    ///     done so far and the book's live contacts.
    /// - Throws: ``ContactStoreError`` with code `io` when a file cannot be written.
    public func exportContacts(as format: ExportFormat, to destination: ExportDestination,
                               progress: (@Sendable (BookProgress) -> Void)? = nil) throws(ContactStoreError) -> ExportReport {
        var report = ExportReport()
        let files = index.uidsByFile.keys.sorted()
        let total = index.liveCount
        var handled = 0
        func finished(_ file: String) {
            guard let progress else { return }
            handled += index.uidsByFile[file]?.count ?? 0
            progress(BookProgress(done: handled, total: total))
        }
        switch destination {
        case .file(let path):
            let output = try ExportOutput(path: path)
            var first = true
            try output.write(Self.header(format))
            for file in files {
                for contact in storedContacts(inFile: file) {
                    var bytes: [UInt8] = []
                    report.notes.append(contentsOf: Self.render(contact.card, as: format, into: &bytes, first: first))
                    first = false
                    try output.write(bytes)
                    report.contacts += 1
                }
                finished(file)
            }
            try output.write(Self.footer(format, empty: first))
            try output.commit()
            report.files = [path]
        case .split(let folder):
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw ContactStoreError(code: .io, message: "cannot create the folder: \(error.localizedDescription)", path: folder)
            }
            var used: Set<String> = []
            for file in files {
                let contacts = storedContacts(inFile: file)
                for contact in contacts {
                    var stem = String(file.dropLast(4))
                    if contacts.count > 1 || used.contains(stem) {
                        stem = SafeFileName.name(forUID: contact.uid).map { String($0.dropLast(4)) } ?? UUID().uuidString.lowercased()
                    }
                    while used.contains(stem) { stem = UUID().uuidString.lowercased() }
                    used.insert(stem)
                    var bytes = Self.header(format)
                    report.notes.append(contentsOf: Self.render(contact.card, as: format, into: &bytes, first: true))
                    bytes.append(contentsOf: Self.footer(format, empty: false))
                    let name = stem + "." + format.fileExtension
                    try POSIX.writeAtomically(bytes, directory: folder, name: name, mode: 0o644, replacing: true)
                    report.files.append(folder + "/" + name)
                    report.contacts += 1
                }
                finished(file)
            }
        }
        return report
    }

    private static func header(_ format: ExportFormat) -> [UInt8] {
        switch format {
        case .vcard3, .vcard4: []
        case .jcard: Array("[".utf8)
        case .xcard: XCardStreamWriter().begin()
        }
    }

    private static func footer(_ format: ExportFormat, empty: Bool) -> [UInt8] {
        switch format {
        case .vcard3, .vcard4: []
        case .jcard: Array((empty ? "]\n" : "\n]\n").utf8)
        case .xcard: XCardStreamWriter().end()
        }
    }

    private static func render(_ card: VCard, as format: ExportFormat, into bytes: inout [UInt8], first: Bool) -> [Diagnostic] {
        switch format {
        case .vcard3: return VCardWriter(target: .v3_0).write(card, into: &bytes)
        case .vcard4: return VCardWriter(target: .v4_0).write(card, into: &bytes)
        case .jcard:
            bytes.append(contentsOf: Array((first ? "\n" : ",\n").utf8))
            let writer = JCardWriter(unwrapsSingleCard: true)
            bytes.append(contentsOf: writer.bytes(for: [card]))
            return writer.notes(for: card)
        case .xcard:
            bytes.append(contentsOf: XCardStreamWriter().write(card))
            return []
        }
    }
}

/// A file written through a hidden temporary file and moved into place on commit, or standard output.
final class ExportOutput {
    private let path: String?
    private let directory: String
    private let name: String
    private let descriptor: Int32
    private var committed = false

    init(path: String) throws(ContactStoreError) {
        if path == "-" {
            self.path = nil
            directory = ""
            name = ""
            descriptor = 1
            return
        }
        self.path = path
        let url = URL(fileURLWithPath: path)
        directory = url.deletingLastPathComponent().path
        name = url.lastPathComponent
        let temporary = directory + "/" + POSIX.temporaryName(for: name)
        _ = unlink(temporary)
        descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .io(path, "cannot write", errno: errno) }
    }

    deinit {
        if path != nil {
            POSIX.closeFile(descriptor)
            if !committed { _ = unlink(directory + "/" + POSIX.temporaryName(for: name)) }
        }
    }

    func write(_ bytes: [UInt8]) throws(ContactStoreError) {
        try POSIX.writeAll(descriptor, bytes, path: path ?? "standard output")
    }

    func commit() throws(ContactStoreError) {
        guard let path else { return }
        guard fsync(descriptor) == 0 else { throw .io(path, "cannot sync", errno: errno) }
        try POSIX.commit(temporary: directory + "/" + POSIX.temporaryName(for: name), to: path, replacing: true)
        committed = true
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
