import ContactDiff
import Foundation
import VCardKit

/// A card from its lines (without BEGIN, END), joined with CRLF.
func card(_ lines: String...) -> VCard {
    let text = "BEGIN:VCARD\r\n" + lines.joined(separator: "\r\n") + "\r\nEND:VCARD\r\n"
    return try! VCardReader.read(text).cards[0]
}

/// Entries from vCard text with any number of cards.
func entries(_ text: String, name: String = "test.vcf") -> [ContactEntry] {
    ContactSetReader.read(bytes: Array(text.utf8), name: name).parsed()
}
