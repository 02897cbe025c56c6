import ContactStore
import Foundation
import Testing
import TestSupport
import VCardKit

/// A new, empty address book in its own temporary folder.
func makeBook(_ label: String = "book") throws -> URL {
    let url = try TestPaths.makeTemporaryDirectory(label).appendingPathComponent("book")
    try AddressBook.create(at: url)
    return url
}

/// A small vCard with CRLF line ends.
func cardText(uid: String?, name: String, email: String? = nil, version: String = "4.0") -> String {
    var lines = ["BEGIN:VCARD", "VERSION:\(version)"]
    if let uid { lines.append("UID:\(uid)") }
    lines.append("FN:\(name)")
    lines.append("N:\(name.split(separator: " ").last ?? "");\(name.split(separator: " ").first ?? "");;;")
    if let email { lines.append("EMAIL:\(email)") }
    lines.append("END:VCARD")
    return lines.joined(separator: "\r\n") + "\r\n"
}

/// The contact `uid` as a remote gives it: ``cardText(uid:name:email:version:)`` at `revision`.
func remoteVersion(uid: String, name: String, email: String? = nil, revision: String) throws -> RemoteChange {
    let bytes = Array(cardText(uid: uid, name: name, email: email).utf8)
    let card = try #require(try VCardReader.read(bytes).cards.first)
    return .version(RemoteVersion(uid: uid, bytes: bytes, hash: ContentHash(of: card), name: name, isGeneratedUID: false,
                                  revision: revision))
}

extension URL {
    func write(_ text: String, to name: String) throws {
        try Data(text.utf8).write(to: appendingPathComponent(name))
    }

    func read(_ name: String) throws -> String {
        try String(contentsOf: appendingPathComponent(name), encoding: .utf8)
    }

    /// The `.vcf` files of a folder, sorted.
    var contactFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".vcf") && !$0.hasPrefix(".") }.sorted()
    }

    var journalURL: URL { appendingPathComponent(".cardsync/journal.jsonl") }
}

/// The journal's lines.
func journalLines(_ book: URL) throws -> [String] {
    try String(contentsOf: book.journalURL, encoding: .utf8).split(separator: "\n").map(String.init)
}
