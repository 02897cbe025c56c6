import Foundation

/// Where the canonical form of a card's properties is collected: a list of
/// ``CanonicalProperty`` values, or the ``CanonicalLines`` the content hash is taken over.
protocol CanonicalSink {
    /// Appends the canonical form of the plain content line `p` whose name has `traits` (see
    /// ``CanonicalLines/appendPlainLine(_:traits:)``), read in place; answers `false`, appending
    /// nothing, when the line must be built first.
    mutating func appendPlainLine(_ p: UnsafeBufferPointer<UInt8>, traits: PropertyTraits) -> Bool
    /// Appends the canonical form of a built property whose upper-cased name is `name`.
    mutating func append(_ property: VCardProperty, name: String)
    /// Forgets everything appended.
    mutating func removeAll()
}

extension Array: CanonicalSink where Element == CanonicalProperty {
    mutating func appendPlainLine(_ p: UnsafeBufferPointer<UInt8>, traits: PropertyTraits) -> Bool {
        var lines = CanonicalLines()
        guard lines.appendPlainLine(p, traits: traits) else { return false }
        if let property = lines.lastLineAsProperty() { append(property) }
        return true
    }

    mutating func append(_ property: VCardProperty, name: String) {
        CanonicalForm.canonicalize(property, name: name, into: &self)
    }

    mutating func removeAll() {
        removeAll(keepingCapacity: true)
    }
}

/// The canonical lines of one card as bytes in one buffer: the text ``ContentHash`` is taken
/// over, made without a `String` for every group, name, parameter and value.
///
/// Each line is what ``CanonicalProperty/description`` spells for the same property, and the
/// lines are sorted and their groups relabelled as ``ContentHash/canonicalText(of:)`` says, so the
/// text is byte for byte the one the `String` definition gives. The definition orders lines as
/// `String`s do: by the code units of their NFC forms. Text whose every scalar is below U+0300
/// (every byte below `0xCC`) is its own NFC form, so such lines are compared as bytes; a line with
/// anything else is compared as `String`s, exactly as the definition compares it.
struct CanonicalLines: CanonicalSink {
    /// One line in ``storage``: its group (lower case, possibly empty), its name, its parameters
    /// (each after a `;`), a `:` and its value.
    struct Line {
        var start: Int
        /// Where the group ends and the name starts.
        var groupEnd: Int
        var nameEnd: Int
        /// Where the parameters end: at the `:` before the value.
        var parametersEnd: Int
        var end: Int
        /// Whether every byte of the line is below `0xCC` (every scalar below U+0300).
        var isSimple: Bool

        var group: Range<Int> { start..<groupEnd }
        var name: Range<Int> { groupEnd..<nameEnd }
        /// The parameters, each after a `;`.
        var parameters: Range<Int> { nameEnd..<parametersEnd }
        var value: Range<Int> { (parametersEnd + 1)..<end }
        /// The line without its group: `NAME;P=v:value`.
        var bare: Range<Int> { groupEnd..<end }
        var hasGroup: Bool { groupEnd > start }
    }

    private(set) var storage: [UInt8] = []
    private(set) var lines: [Line] = []
    /// The canonical properties of a built line, on their way to ``storage``.
    private var built: [CanonicalProperty] = []
    /// The lower-cased `TYPE` values of a plain line, one after another, and where each is.
    private var typeBytes: [UInt8] = []
    private var typeValues: [Range<Int>] = []
    /// Where each parameter of the last line ``appendPlainLine(_:traits:)`` appended is (without its `;`).
    private var lastParameters: [Range<Int>] = []

    init(capacity: Int = 0) {
        storage.reserveCapacity(capacity)
        lines.reserveCapacity(24)
    }

    mutating func removeAll() {
        storage.removeAll(keepingCapacity: true)
        lines.removeAll(keepingCapacity: true)
    }

    // MARK: - Appending

    mutating func append(_ property: VCardProperty, name: String) {
        built.removeAll(keepingCapacity: true)
        CanonicalForm.canonicalize(property, name: name, into: &built)
        for canonical in built { append(canonical) }
    }

    /// Appends one canonical property as it is.
    mutating func append(_ property: CanonicalProperty) {
        let start = storage.count
        storage.append(contentsOf: property.group.utf8)
        let groupEnd = storage.count
        storage.append(contentsOf: property.name.utf8)
        let nameEnd = storage.count
        for parameter in property.parameters {
            storage.append(0x3B)
            storage.append(contentsOf: parameter.utf8)
        }
        let parametersEnd = storage.count
        storage.append(0x3A)
        storage.append(contentsOf: property.value.utf8)
        recordLine(start: start, groupEnd: groupEnd, nameEnd: nameEnd, parametersEnd: parametersEnd)
    }

    /// Records the line that starts at `start` and ends at the end of ``storage``.
    private mutating func recordLine(start: Int, groupEnd: Int, nameEnd: Int, parametersEnd: Int) {
        let end = storage.count
        let isSimple = storage.withUnsafeBufferPointer { all in Self.isSimple(UnsafeBufferPointer(rebasing: all[start..<end])) }
        lines.append(Line(start: start, groupEnd: groupEnd, nameEnd: nameEnd, parametersEnd: parametersEnd, end: end, isSimple: isSimple))
    }

    /// Whether every byte is below `0xCC`, eight at a time.
    private static func isSimple(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        let count = bytes.count
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= count {
                // No byte with its top bit set: all ASCII, so all below 0xCC.
                if raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { break }
                index += 8
            }
        }
        while index < count {
            if bytes[index] >= 0xCC { return false }
            index += 1
        }
        return true
    }

    /// The canonical form of the plain line `p` (see ``DeferredProperties``) whose name has
    /// `traits`, written as bytes, when its only parameters are `TYPE`, `PREF` and `VALUE` (and,
    /// for a binary value, an `ENCODING` of `b` or `BASE64`): what
    /// ``CanonicalForm/canonicalize(_:name:into:)`` makes of the property the full parse builds of
    /// it. That is its lower-cased group, its name, its parameters (`PREF` — `1` when a `TYPE`
    /// holds `pref` and no `PREF` is given —, the other `TYPE` values lower-cased and sorted, and
    /// a `VALUE` that is not the default) and its value normalised as
    /// ``CanonicalForm/normalizedValue(_:kind:name:)`` normalises it; inline binary data (base64
    /// with an `ENCODING`, or a base64 `data:` URI) becomes a `data:` URI with its media type (the
    /// first `TYPE` of base64 data) and its base64 without white space. Answers `false`,
    /// appending nothing, for a line with any other parameter, which the caller then builds.
    mutating func appendPlainLine(_ p: UnsafeBufferPointer<UInt8>, traits: PropertyTraits) -> Bool {
        assert(CanonicalForm.readsInPlace(traits), "a \(traits.kind) line is built, not read in place")
        let count = p.count
        let located = CardParser.locateName(p)
        var i = located.end
        typeBytes.removeAll(keepingCapacity: true)
        typeValues.removeAll(keepingCapacity: true)
        // The first value of the PREF and of the VALUE (lower-cased), as the full parse splits
        // them: at commas outside quotes.
        var prefValue: Range<Int>?
        var valueType: Range<Int>?
        // An ENCODING (only `b` or `BASE64`) of a binary value: it becomes a `data:` URI.
        var isBase64 = false
        while i < count && p[i] == 0x3B {
            i += 1
            let nameStart = i
            while i < count, p[i] != 0x3D, p[i] != 0x3B, p[i] != 0x3A { i += 1 }
            guard i < count, p[i] == 0x3D else { return false }
            let parameterName = nameStart..<i
            let isType = p.isName("TYPE", parameterName)
            let isPref = !isType && p.isName("PREF", parameterName)
            let isEncoding = !isType && !isPref && traits.kind == .binary && p.isName("ENCODING", parameterName)
            // A second PREF, VALUE or ENCODING is left to the full parse and the `String` path.
            guard isType || isPref && prefValue == nil || isEncoding && !isBase64 || !isEncoding && p.isName("VALUE", parameterName) && valueType == nil
            else { return false }
            i += 1
            let valuesStart: Int, valuesEnd: Int
            let isQuoted = i < count && p[i] == 0x22
            if isQuoted {
                valuesStart = i + 1
                i = valuesStart
                while i < count, p[i] != 0x22 { i += 1 }
                guard i < count else { return false }
                valuesEnd = i
                i += 1
            } else {
                valuesStart = i
                while i < count, p[i] != 0x3B, p[i] != 0x3A { i += 1 }
                valuesEnd = i
            }
            if isEncoding {
                guard !isQuoted, p.isName("B", valuesStart..<valuesEnd) || p.isName("BASE64", valuesStart..<valuesEnd) else { return false }
                isBase64 = true
                continue
            }
            // Split at commas, empty pieces left out, each lower-cased: TYPE's values, or the
            // first value of PREF or VALUE (a quoted one whole).
            let first = typeBytes.count
            var pieceStart = valuesStart
            for k in valuesStart...valuesEnd where k == valuesEnd || p[k] == 0x2C && (isType || !isQuoted) {
                if k > pieceStart || !isType {
                    let start = typeBytes.count
                    for j in pieceStart..<k {
                        let byte = p[j]
                        // Sorted as bytes below; a plain line's parameters are ASCII.
                        guard byte < 0x80 else { return false }
                        typeBytes.append(isPref || byte < 0x41 || byte > 0x5A ? byte : byte + 0x20)
                    }
                    if isType {
                        typeValues.append(start..<typeBytes.count)
                    } else {
                        break
                    }
                }
                pieceStart = k + 1
            }
            if isPref { prefValue = first..<typeBytes.count } else if !isType { valueType = first..<typeBytes.count }
        }
        guard i < count, p[i] == 0x3A else { return false }
        let value = UnsafeBufferPointer(rebasing: p[(i + 1)...])
        let name = traits.registeredName
            ?? PropertyTraits.upperName(of: UnsafeBufferPointer(rebasing: p[(located.groupEnd.map { $0 + 1 } ?? 0)..<located.end]))
        if name == "KIND" && value.isName("INDIVIDUAL", 0..<value.count) { return true }

        // `internet` is an e-mail address's default; `pref` is `PREF=1` unless a PREF is given.
        var hasPrefType = false
        var keptValueType: Range<Int>?
        var valueTypeName: String?
        // Base64 data's media type: from its first TYPE (as written), else the default.
        var mediaTypeFromType: String?
        typeBytes.withUnsafeBufferPointer { bytes in
            if !typeValues.isEmpty {
                let isEmail = name == "EMAIL"
                typeValues.removeAll { piece in
                    if bytes.equals("pref", piece) {
                        hasPrefType = true
                        return true
                    }
                    return isEmail && bytes.equals("internet", piece)
                }
                if isBase64 && !typeValues.isEmpty {
                    let first = String(decoding: UnsafeBufferPointer(rebasing: bytes[typeValues.removeFirst()]), as: UTF8.self)
                    mediaTypeFromType = MediaTypes.mediaType(forTypeValue: first, property: name)
                }
                if typeValues.count > 1 { typeValues.sort { Self.compare(bytes, $0, bytes, $1) < 0 } }
            }
            if let valueType {
                // A default VALUE is left out (any of these for a property of known kind).
                let type = String(decoding: UnsafeBufferPointer(rebasing: bytes[valueType]), as: UTF8.self)
                valueTypeName = type
                if !CanonicalForm.leavesOut(valueType: type, kind: traits.kind, name: name) { keptValueType = valueType }
            }
        }

        // Inline binary as a `data:` URI: its media type, then its base64 without white space.
        var dataURI: (mediaType: [UInt8], base64: UnsafeBufferPointer<UInt8>)?
        if traits.kind == .binary {
            if isBase64 {
                dataURI = (Array((mediaTypeFromType ?? "application/octet-stream").utf8), value)
            } else if let (header, base64) = Self.splitBase64DataURI(value) {
                // Lower-cased as ASCII; anything else is left to the `String` path.
                guard !header.contains(where: { $0 >= 0x80 }) else { return false }
                dataURI = (header.isEmpty ? Array("application/octet-stream".utf8) : header.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 },
                           base64)
            }
            // White space other than ASCII's is the `String` path's to remove.
            if let dataURI, dataURI.base64.contains(where: { $0 >= 0x80 }) { return false }
        }

        let start = storage.count
        if let groupEnd = located.groupEnd {
            for k in 0..<groupEnd { storage.append(p[k] >= 0x41 && p[k] <= 0x5A ? p[k] + 0x20 : p[k]) }
        }
        let groupEnd = storage.count
        storage.append(contentsOf: name.utf8)
        let nameEnd = storage.count
        // Sorted: PREF, TYPE, VALUE.
        lastParameters.removeAll(keepingCapacity: true)
        if let prefValue {
            storage.append(contentsOf: ";PREF=".utf8)
            storage.append(contentsOf: typeBytes[prefValue])
            lastParameters.append((nameEnd + 1)..<storage.count)
        } else if hasPrefType {
            storage.append(contentsOf: ";PREF=1".utf8)
            lastParameters.append((nameEnd + 1)..<storage.count)
        }
        for (position, piece) in typeValues.enumerated() {
            storage.append(contentsOf: position == 0 ? ";TYPE=".utf8 : ",".utf8)
            storage.append(contentsOf: typeBytes[piece])
        }
        if !typeValues.isEmpty { lastParameters.append((lastParameters.last.map { $0.upperBound + 1 } ?? nameEnd + 1)..<storage.count) }
        if let keptValueType {
            let isURL = typeBytes[keptValueType].elementsEqual("url".utf8)
            storage.append(contentsOf: ";VALUE=".utf8)
            storage.append(contentsOf: isURL ? Array("uri".utf8)[...] : typeBytes[keptValueType])
            lastParameters.append((lastParameters.last.map { $0.upperBound + 1 } ?? nameEnd + 1)..<storage.count)
        }
        let parametersEnd = storage.count
        storage.append(0x3A)
        if let dataURI {
            storage.append(contentsOf: "data:".utf8)
            storage.append(contentsOf: dataURI.mediaType)
            storage.append(contentsOf: ";base64,".utf8)
            for byte in dataURI.base64 where !(byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D) { storage.append(byte) }
        } else if let valueTypeName, traits.kind == .unknown, CanonicalForm.dateValueTypes.contains(valueTypeName) {
            // A date of a property of unknown kind, in basic form.
            let normalized = CanonicalForm.normalizedValue(String(decoding: value, as: UTF8.self), kind: traits.kind, name: name)
            storage.append(contentsOf: DateForms.basic(normalized, isTime: valueTypeName == "time").utf8)
        } else {
            appendNormalizedValue(value, kind: traits.kind, name: name)
        }
        recordLine(start: start, groupEnd: groupEnd, nameEnd: nameEnd, parametersEnd: parametersEnd)
        return true
    }

    /// A `data:` URI whose header (up to its first comma) ends in `;base64`, split into its media
    /// type (possibly empty) and its base64, as ``VersionConverter/dataURI(_:)`` splits it;
    /// `nil` for any other value.
    private static func splitBase64DataURI(_ value: UnsafeBufferPointer<UInt8>) -> (header: UnsafeBufferPointer<UInt8>, base64: UnsafeBufferPointer<UInt8>)? {
        guard value.count > 5, value.starts(with: "data:".utf8), let comma = value.firstIndex(of: 0x2C) else { return nil }
        let header = UnsafeBufferPointer(rebasing: value[5..<comma])
        guard header.count >= 7, header[(header.count - 7)...].elementsEqual(";base64".utf8) else { return nil }
        return (UnsafeBufferPointer(rebasing: header[0..<(header.count - 7)]), UnsafeBufferPointer(rebasing: value[(comma + 1)...]))
    }

    /// The last line ``appendPlainLine(_:traits:)`` appended, as a ``CanonicalProperty``; `nil`
    /// when it appended none (`KIND:individual`).
    func lastLineAsProperty() -> CanonicalProperty? {
        guard let line = lines.last else { return nil }
        return storage.withUnsafeBufferPointer { p in
            func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: p[range]), as: UTF8.self) }
            return CanonicalProperty(group: text(line.group), name: text(line.name), parameters: lastParameters.map(text),
                                     value: text(line.value))
        }
    }

    /// Appends ``CanonicalForm/normalizedValue(_:kind:name:)`` of the plain value `value`: text
    /// forms re-escaped and an ASCII telephone number filtered as bytes, every other kind through
    /// the `String` function itself.
    private mutating func appendNormalizedValue(_ value: UnsafeBufferPointer<UInt8>, kind: PropertyValueKind, name: String) {
        func asString() {
            storage.append(contentsOf: CanonicalForm.normalizedValue(String(decoding: value, as: UTF8.self), kind: kind, name: name).utf8)
        }
        if name == "XML" { return asString() }
        switch kind {
        case .text, .embeddedCard:
            _ = TextEscaping.appendReescaped(value, separator: 0, to: &storage)
        case .textList:
            _ = TextEscaping.appendReescaped(value, separator: 0x2C, to: &storage)
        case .structured:
            let expected = CanonicalForm.componentCount(ofStructured: name)
            let present = TextEscaping.appendReescaped(value, separator: 0x3B, secondSeparator: 0x2C, to: &storage) + 1
            if present < expected { storage.append(contentsOf: repeatElement(0x3B, count: expected - present)) }
        case .structuredText:
            _ = TextEscaping.appendReescaped(value, separator: 0x3B, to: &storage)
        case .uri where name == "TEL":
            guard !value.contains(where: { $0 >= 0x80 }) else { return asString() }
            appendTelephoneNumber(value)
        case .uri where name == "GEO" || name == "TZ":
            asString()
        case .dateTime:
            if !appendBasicDate(value) { asString() }
        case .uri, .binary, .unknown:
            storage.append(contentsOf: value)
        }
    }

    /// ``DateForms/basic(_:isTime:)`` of a date without a time, in place: `YYYY-MM-DD` becomes
    /// `YYYYMMDD` and `--MM-DD` `--MMDD`; any other value of printable ASCII without a `T` stays
    /// as it is. Answers `false`, appending nothing, for anything else (a time, other bytes).
    private mutating func appendBasicDate(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        func isDigit(_ index: Int) -> Bool { value[index] >= 0x30 && value[index] <= 0x39 }
        for byte in value where byte < 0x20 || byte >= 0x7F || byte == 0x54 || byte == 0x74 { return false }
        let count = value.count
        if count == 10, value[4] == 0x2D, value[7] == 0x2D, (0..<4).allSatisfy(isDigit), isDigit(5), isDigit(6), isDigit(8), isDigit(9) {
            storage.append(contentsOf: value[0..<4])
            storage.append(contentsOf: value[5..<7])
            storage.append(contentsOf: value[8..<10])
        } else if count == 7, value[0] == 0x2D, value[1] == 0x2D, value[4] == 0x2D, isDigit(2), isDigit(3), isDigit(5), isDigit(6) {
            storage.append(contentsOf: value[0..<4])
            storage.append(contentsOf: value[5..<7])
        } else {
            storage.append(contentsOf: value)
        }
        return true
    }

    /// An ASCII `TEL` value as the canonical form compares it: without its `tel:` scheme (or
    /// else unescaped) and without visual separators.
    private mutating func appendTelephoneNumber(_ value: UnsafeBufferPointer<UInt8>) {
        func isSeparator(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x2D || byte == 0x2E || byte == 0x28 || byte == 0x29 }
        if value.count >= 4 && value[0] == 0x74 && value[1] == 0x65 && value[2] == 0x6C && value[3] == 0x3A {
            for byte in value[4...] where !isSeparator(byte) { storage.append(byte) }
            return
        }
        TextEscaping.forEachUnescaped(value) { byte in
            if !isSeparator(byte) { storage.append(byte) }
        }
    }

    // MARK: - Order

    /// Sorts the lines as ``CanonicalProperty`` sorts, then relabels the groups as
    /// ``ContentHash/canonicalText(of:)`` says and sorts again.
    mutating func sortAndRelabelGroups() {
        sortLines()
        guard lines.contains(where: \.hasGroup) else { return }
        relabelGroups()
        sortLines()
    }

    private mutating func sortLines() {
        guard lines.count > 1 else { return }
        let bytes = storage
        bytes.withUnsafeBufferPointer { p in
            lines.sort { Self.precedes($0, $1, p) }
        }
    }

    /// `a < b` as ``CanonicalProperty`` orders them: by name, group, value, then the parameters
    /// joined by `;`.
    private static func precedes(_ a: Line, _ b: Line, _ p: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.isSimple && b.isSimple else { return stringPrecedes(a, b, p) }
        var order = compare(p, a.name, p, b.name)
        if order != 0 { return order < 0 }
        order = compare(p, a.group, p, b.group)
        if order != 0 { return order < 0 }
        order = compare(p, a.value, p, b.value)
        if order != 0 { return order < 0 }
        // Each parameter after a `;`: the same order as the parameters joined by `;`.
        return compare(p, a.parameters, p, b.parameters) < 0
    }

    /// ``precedes(_:_:_:)`` with each part compared as a `String`.
    private static func stringPrecedes(_ a: Line, _ b: Line, _ p: UnsafeBufferPointer<UInt8>) -> Bool {
        func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: p[range]), as: UTF8.self) }
        func joined(_ parameters: Range<Int>) -> String { text(parameters.isEmpty ? parameters : (parameters.lowerBound + 1)..<parameters.upperBound) }
        for (left, right) in [(a.name, b.name), (a.group, b.group), (a.value, b.value)] {
            let (l, r) = (text(left), text(right))
            if l != r { return l < r }
        }
        return joined(a.parameters) < joined(b.parameters)
    }

    /// Negative, zero or positive as `a[x]` sorts before, with or after `b[y]`, byte by byte.
    private static func compare(_ a: UnsafeBufferPointer<UInt8>, _ x: Range<Int>, _ b: UnsafeBufferPointer<UInt8>, _ y: Range<Int>) -> Int {
        let common = min(x.count, y.count)
        if common > 0, let left = a.baseAddress, let right = b.baseAddress {
            let order = memcmp(left + x.lowerBound, right + y.lowerBound, common)
            if order != 0 { return Int(order) }
        }
        return x.count - y.count
    }

    /// Replaces the group labels by `g1`, `g2`, … in the order of what each group holds: its
    /// lines without the label, sorted and joined by line feeds, then the label.
    private mutating func relabelGroups() {
        struct Group {
            var label: String
            var members: [Int] = []
            var content: [UInt8] = []
            var isSimple = true
        }
        var groups: [Group] = []
        var groupOfLabel: [String: Int] = [:]
        var newLabels: [String?] = Array(repeating: nil, count: lines.count)
        storage.withUnsafeBufferPointer { p in
            for (index, line) in lines.enumerated() where line.hasGroup {
                // Keyed by `String`, as the definition keys them.
                let label = String(decoding: UnsafeBufferPointer(rebasing: p[line.group]), as: UTF8.self)
                let position: Int
                if let known = groupOfLabel[label] {
                    position = known
                } else {
                    position = groups.count
                    groups.append(Group(label: label))
                    groupOfLabel[label] = position
                }
                groups[position].members.append(index)
            }
            for position in groups.indices {
                var members = groups[position].members
                members.sort { Self.barePrecedes(lines[$0], lines[$1], p) }
                var content: [UInt8] = []
                for (offset, member) in members.enumerated() {
                    if offset > 0 { content.append(0x0A) }
                    content.append(contentsOf: p[lines[member].bare])
                    if !lines[member].isSimple { groups[position].isSimple = false }
                }
                groups[position].content = content
            }
        }
        groups.sort { a, b in
            if a.isSimple && b.isSimple {
                let order = a.content.withUnsafeBufferPointer { x in
                    b.content.withUnsafeBufferPointer { y in Self.compare(x, 0..<x.count, y, 0..<y.count) }
                }
                if order != 0 { return order < 0 }
            } else {
                let (x, y) = (String(decoding: a.content, as: UTF8.self), String(decoding: b.content, as: UTF8.self))
                if x != y { return x < y }
            }
            return a.label < b.label
        }
        for (position, group) in groups.enumerated() {
            for member in group.members { newLabels[member] = "g\(position + 1)" }
        }
        // The lines again, each under its new label, in the same order.
        let old = storage
        let oldLines = lines
        removeAll()
        old.withUnsafeBufferPointer { p in
            for (index, line) in oldLines.enumerated() {
                let start = storage.count
                if let label = newLabels[index] { storage.append(contentsOf: label.utf8) }
                let groupEnd = storage.count
                storage.append(contentsOf: p[line.bare])
                recordLine(start: start, groupEnd: groupEnd, nameEnd: groupEnd + line.name.count,
                           parametersEnd: groupEnd + (line.parametersEnd - line.groupEnd))
            }
        }
    }

    /// Whether line `a` without its group sorts before line `b` without its group, as `String`s.
    private static func barePrecedes(_ a: Line, _ b: Line, _ p: UnsafeBufferPointer<UInt8>) -> Bool {
        if a.isSimple && b.isSimple { return compare(p, a.bare, p, b.bare) < 0 }
        return String(decoding: UnsafeBufferPointer(rebasing: p[a.bare]), as: UTF8.self)
            < String(decoding: UnsafeBufferPointer(rebasing: p[b.bare]), as: UTF8.self)
    }

    // MARK: - Text

    /// The canonical text: the line `cardsync-content-v1`, then each line preceded by its length
    /// in bytes and a space, and ended by a line feed.
    func text() -> [UInt8] {
        var text: [UInt8] = []
        text.reserveCapacity(storage.count + lines.count * 8 + 20)
        text.append(contentsOf: ContentHash.versionLine)
        storage.withUnsafeBufferPointer { p in
            for line in lines {
                Self.appendDecimal(line.bare.count + (line.hasGroup ? line.group.count + 1 : 0), to: &text)
                text.append(0x20)
                if line.hasGroup {
                    text.append(contentsOf: p[line.group])
                    text.append(0x2E)
                }
                text.append(contentsOf: p[line.bare])
                text.append(0x0A)
            }
        }
        return text
    }

    /// Appends the decimal digits of a non-negative `number`, as `String(number)` spells it.
    private static func appendDecimal(_ number: Int, to bytes: inout [UInt8]) {
        var divisor = 1
        while divisor <= number / 10 { divisor *= 10 }
        var rest = number
        while divisor > 0 {
            bytes.append(UInt8(truncatingIfNeeded: 0x30 + rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether `self[range]` is the ASCII `literal` exactly.
    fileprivate func equals(_ literal: StaticString, _ range: Range<Int>) -> Bool {
        guard range.count == literal.utf8CodeUnitCount else { return false }
        let bytes = literal.utf8Start
        for k in 0..<range.count where self[range.lowerBound + k] != bytes[k] { return false }
        return true
    }
}
