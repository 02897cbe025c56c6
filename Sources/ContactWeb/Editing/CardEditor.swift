import Foundation
import VCardKit

/// Applies an edit form or a raw vCard to a stored card so that only what was edited changes:
/// every other property keeps its bytes (group, parameters, order, folding, line ends), because
/// ``VCardWriter`` writes unedited properties back from their original bytes. `REV` is set to
/// the time of the edit.
struct CardEditor: Sendable {
    /// The stored file and its card.
    var bytes: [UInt8]
    var card: VCard

    /// The result of applying an edit.
    struct Outcome: Sendable {
        /// The new file, or `nil` when nothing was edited.
        var bytes: [UInt8]?
        /// The properties changed, added or removed (names), for the confirmation message.
        var changed: [String]
    }

    /// The form field names of the property at `position` (one per component).
    static func fieldNames(_ position: Int, count: Int) -> [String] {
        count == 1 ? ["p\(position)"] : (0..<count).map { "p\(position).\($0)" }
    }

    /// The form field names of the empty slot for a new value of `property` (the `n`th slot).
    static func newFieldNames(_ property: EditableProperty, slot: Int = 0) -> [String] {
        let base = "new.\(property.name).\(slot)"
        return property.componentCount == 1 ? [base] : (0..<property.componentCount).map { "\(base).\($0)" }
    }

    /// Applies the edit form's fields: `pN` (or `pN.K` per component) for the value of the
    /// property at position N as shown, `removeN` to remove it, `new.NAME.S` (`.K`) with
    /// `type.NAME.S` for new values.
    func applying(form: FormFields, now: Date) -> Outcome {
        // Each property of the result, with the bytes to write for it when only its value changed.
        var items: [(property: VCardProperty, bytes: [UInt8]?)] = []
        var changed: [String] = []
        for (position, property) in card.properties.enumerated() {
            guard let editable = EditableProperty.named(property.name.uppercased()), property.group == nil || editable.isRepeatable else {
                items.append((property, nil))
                continue
            }
            if form.contains("remove\(position)") {
                changed.append(property.name.uppercased())
                continue
            }
            let names = Self.fieldNames(position, count: editable.componentCount)
            let values = names.map { form[$0].map(Self.normalizeLineEnds) }
            guard values.allSatisfy({ $0 != nil }), let replacement = editable.applying(values.map { $0! }, to: property) else {
                items.append((property, nil))
                continue
            }
            items.append((replacement, property.original.flatMap { PropertyLine.replacingValue(original: $0, with: replacement.rawValue) }))
            changed.append(property.name.uppercased())
        }
        for editable in EditableProperty.all {
            for slot in 0..<20 {
                let names = Self.newFieldNames(editable, slot: slot)
                guard names.contains(where: form.contains) else { break }
                let values = names.map { Self.normalizeLineEnds(form[$0] ?? "") }
                guard let property = editable.makeProperty(values, type: form["type.\(editable.name).\(slot)"]) else { continue }
                changed.append(editable.name)
                // After the last property of the same name, else at the end of the card.
                if let last = items.lastIndex(where: { $0.property.hasName(property.name) }) {
                    items.insert((property, nil), at: last + 1)
                } else {
                    items.append((property, nil))
                }
            }
        }
        guard !changed.isEmpty else { return Outcome(bytes: nil, changed: []) }
        let stamp = Self.revisionText(now, version: card.version)
        if let position = items.firstIndex(where: { $0.property.hasName("REV") }) {
            var revision = items[position].property
            let original = revision.original
            revision.rawValue = stamp
            items[position] = (revision, original.flatMap { PropertyLine.replacingValue(original: $0, with: stamp) })
        } else {
            items.append((VCardProperty(name: "REV", rawValue: stamp), nil))
        }
        return Outcome(bytes: write(items), changed: changed)
    }

    /// The card's text from its parts: the stored bytes of every unedited property, the given
    /// bytes of value-only edits, and ``VCardWriter``'s lines for new or reshaped properties.
    /// Falls back to writing the card with ``VCardWriter`` when the parts do not rebuild the
    /// stored file exactly.
    func write(_ items: [(property: VCardProperty, bytes: [UInt8]?)]) -> [UInt8] {
        var edited = card
        edited.properties = items.map(\.property)
        guard let begin = card.originalBegin, let end = card.originalEnd, rebuildsStoredFile() else { return write(edited) }
        var output = card.blankLinesBefore + Array(begin)
        let version = card.version ?? .v4_0
        for (property, bytes) in items {
            if let bytes {
                output.append(contentsOf: bytes)
            } else if let original = property.original {
                output.append(contentsOf: original)
            } else {
                output.append(contentsOf: Self.lines(of: property, version: version))
            }
        }
        output.append(contentsOf: end)
        if !bytes.contains(0x0D) { output.removeAll { $0 == 0x0D } }
        return output
    }

    /// Whether the card's parts, written back one after the other, are the stored bytes.
    private func rebuildsStoredFile() -> Bool {
        guard let begin = card.originalBegin, let end = card.originalEnd else { return false }
        var rebuilt = card.blankLinesBefore + Array(begin)
        for property in card.properties {
            guard let original = property.original else { return false }
            rebuilt.append(contentsOf: original)
        }
        rebuilt.append(contentsOf: end)
        return rebuilt == bytes
    }

    /// The lines ``VCardWriter`` writes for `property` in a card of `version`.
    static func lines(of property: VCardProperty, version: VCardVersion) -> [UInt8] {
        let text = VCardWriter().bytes(for: VCard(version: version == .v2_1 ? .v3_0 : version, properties: [property]))
        // BEGIN and VERSION lines first, END line last.
        var lines = text.split(separator: 0x0A, omittingEmptySubsequences: false).map { Array($0) + [0x0A] }
        if lines.last == [0x0A] { lines.removeLast() }
        guard lines.count >= 3 else { return [] }
        return Array(lines[2..<(lines.count - 1)].joined())
    }

    /// The card written with the stored file's line ends: a file with LF line ends gets LF on the
    /// lines the edit wrote too.
    func write(_ edited: VCard) -> [UInt8] {
        var output = VCardWriter().bytes(for: edited)
        if !bytes.contains(0x0D) { output.removeAll { $0 == 0x0D } }
        return output
    }

    /// `REV` set to `now` in the card's version's form (replacing the first `REV`, else added).
    static func stampRevision(_ card: inout VCard, now: Date) {
        let value = revisionText(now, version: card.version)
        if let position = card.properties.firstIndex(where: { $0.hasName("REV") }) {
            card.properties[position].rawValue = value
        } else {
            card.append(VCardProperty(name: "REV", rawValue: value))
        }
    }

    static func revisionText(_ date: Date, version: VCardVersion?) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        let year = String(format: "%04d", parts.year ?? 1970)
        if version == .v4_0 {
            return "\(year)\(two(parts.month))\(two(parts.day))T\(two(parts.hour))\(two(parts.minute))\(two(parts.second))Z"
        }
        return "\(year)-\(two(parts.month))-\(two(parts.day))T\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second))Z"
    }

    /// A browser sends CRLF inside text areas; card values hold LF.
    static func normalizeLineEnds(_ text: String) -> String {
        text.replacingOccurrences(of: "\r\n", with: "\n")
    }
}
