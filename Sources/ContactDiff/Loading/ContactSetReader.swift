import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ContactStore
import VCardKit

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
    /// - Parameters:
    ///   - path: a contact file or a folder of them.
    ///   - progress: for a folder, called with the files read (step ``ContactDiffProgress/Step/reading``)
    ///     before the first and after each batch of files.
    /// - Throws: ``ContactDiffError`` — `missingInput` when nothing is at `path`, `io` when it
    ///   cannot be read, `invalidInput` when a single file holds no readable card.
    public static func read(path: String,
                            progress: (@Sendable (ContactDiffProgress) -> Void)? = nil) throws(ContactDiffError) -> ContactSet {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ContactDiffError(code: .missingInput, message: "no such file or folder", path: path)
        }
        if isDirectory.boolValue { return try readFolder(path, progress: progress) }
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
            if let cards = CardSplitter.split(bytes) {
                return ContactSet(name: name, items: cards.map { .text(bytes[$0.range], source: name, line: $0.line) })
            }
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
            var remaining: ArraySlice<UInt8> = bytes[...]
            return readDocument(format: ContactFormat.detect(bytes.prefix(256)), name: name) {
                // In chunks of 1 MiB, as a file is read.
                guard !remaining.isEmpty else { return nil }
                defer { remaining = remaining.dropFirst(1 << 20) }
                return Array(remaining.prefix(1 << 20))
            }
        }
    }

    /// A jCard or xCard document read card by card from `next`'s chunks (`nil` at the end), so
    /// that the card and card-count limits apply and no more than a card and a chunk of the
    /// input are held besides the cards.
    static func readDocument(format: ContactFormat, name: String, chunks next: @escaping () -> [UInt8]?) -> ContactSet {
        var items: [ContactSet.Item] = []
        let diagnostics = CardDocumentReader.read(format, sourceName: name, chunks: next) { card in
            items.append(.card(card, origin: "\(name):\(card.location?.line ?? 1)"))
        }
        return ContactSet(name: name, items: items, diagnostics: diagnostics)
    }

    private static func readFile(_ path: String, reportedAs name: String) throws(ContactDiffError) -> ContactSet {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ContactDiffError(code: errno == ENOENT ? .missingInput : .io, message: "cannot open: \(String(cString: strerror(errno)))", path: path)
        }
        defer { close(descriptor) }
        var head = [UInt8](repeating: 0, count: 256)
        let count = head.withUnsafeMutableBufferPointer { systemRead(descriptor, $0.baseAddress!, $0.count) }
        head.removeSubrange(max(count, 0)...)
        let format = ContactFormat.detect(head[...])
        guard format != .vcard, count > 0 else { return read(bytes: try readBytes(path), name: name) }
        // jCard and xCard files are streamed card by card.
        var pending: [UInt8]? = head
        var failure: Int32 = 0
        let set = readDocument(format: format, name: name) {
            if let first = pending { pending = nil; return first }
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let read = chunk.withUnsafeMutableBufferPointer { systemRead(descriptor, $0.baseAddress!, $0.count) }
                if read < 0 && errno == EINTR { continue }
                if read < 0 { failure = errno }
                guard read > 0 else { return nil }
                chunk.removeSubrange(read...)
                return chunk
            }
        }
        if failure != 0 {
            throw ContactDiffError(code: .io, message: "cannot read: \(String(cString: strerror(failure)))", path: path)
        }
        return set
    }

    /// The whole file, read straight into an array (no intermediate `Data`).
    static func readBytes(_ path: String) throws(ContactDiffError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ContactDiffError(code: errno == ENOENT ? .missingInput : .io, message: "cannot open: \(String(cString: strerror(errno)))", path: path)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw ContactDiffError(code: .io, message: "cannot read: \(String(cString: strerror(errno)))", path: path)
        }
        // The size fstat gives, then whatever a growing file still holds.
        var capacity = max(Int(info.st_size), 0) + 1
        var bytes: [UInt8] = []
        while true {
            var failure: Int32 = 0
            let previous = bytes
            bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                var filled = previous.count
                if filled > 0 { _ = buffer.initialize(from: previous) }
                while filled < capacity {
                    let count = systemRead(descriptor, buffer.baseAddress! + filled, capacity - filled)
                    if count < 0 {
                        if errno == EINTR { continue }
                        failure = errno
                        break
                    }
                    if count == 0 { break }
                    filled += count
                }
                initialized = filled
            }
            if failure != 0 {
                throw ContactDiffError(code: .io, message: "cannot read: \(String(cString: strerror(failure)))", path: path)
            }
            if bytes.count < capacity { return bytes }
            capacity *= 2
        }
    }

    private static func readFolder(_ path: String,
                                   progress: (@Sendable (ContactDiffProgress) -> Void)?) throws(ContactDiffError) -> ContactSet {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw ContactDiffError(code: .io, message: "cannot list the folder: \(error.localizedDescription)", path: path)
        }
        let files = names.filter { name in
            guard !name.hasPrefix("."), let dot = name.utf8.lastIndex(of: 0x2E) else { return false }
            return contactFileExtensions.contains(String(name[name.utf8.index(after: dot)...]).lowercased())
        }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }  // byte order: no Unicode comparison for 100k names
        let folder = path.hasSuffix("/") ? String(path.dropLast()) : path
        let reported = progress.map { progress in { (done: Int) in progress(ContactDiffProgress(step: .reading, done: done, total: files.count)) } }
        let sets = Parallel.map(files, minimumPerWorker: 256, progress: reported) { name -> Result<ContactSet, ContactDiffError> in
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

/// `read(2)`, under a name the reader's own `read` methods do not hide.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
