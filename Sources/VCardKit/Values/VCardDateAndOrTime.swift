/// A date, time, date-time or truncated form as vCard 3.0 and 4.0 write them (RFC 6350 §4.3,
/// RFC 2426 §5.8.4 and ISO 8601 extended forms): `1985-04-12`, `19850412`, `--0412` (no year),
/// `---12` (day only), `T1020`, `19961022T140000Z`, `1996-10-22T14:00:00+01:00`.
public struct VCardDateAndOrTime: Sendable, Hashable, CustomStringConvertible {
    public var year: Int?
    public var month: Int?
    public var day: Int?
    public var hour: Int?
    public var minute: Int?
    public var second: Int?
    /// The UTC offset in minutes (`Z` is 0), when the value has one.
    public var utcOffsetMinutes: Int?

    /// Creates a value from its parts.
    public init(year: Int? = nil, month: Int? = nil, day: Int? = nil, hour: Int? = nil, minute: Int? = nil,
                second: Int? = nil, utcOffsetMinutes: Int? = nil) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.utcOffsetMinutes = utcOffsetMinutes
    }

    /// Parses any of the forms above; `nil` when `text` is none of them.
    ///
    /// ```swift
    /// VCardDateAndOrTime("--0415")?.month // 4
    /// ```
    public init?(_ text: String) {
        var scalars = Array(text.utf8)
        guard !scalars.isEmpty else { return nil }
        var datePart = scalars
        var timePart: [UInt8] = []
        if let t = scalars.firstIndex(where: { $0 == 0x54 || $0 == 0x74 }) {
            datePart = Array(scalars[..<t])
            timePart = Array(scalars[(t + 1)...])
        }
        scalars = []
        if !datePart.isEmpty && !Self.parseDate(datePart, into: &self) { return nil }
        if !timePart.isEmpty && !Self.parseTime(timePart, into: &self) { return nil }
        if datePart.isEmpty && timePart.isEmpty { return nil }
        if let month, !(1...12).contains(month) { return nil }
        if let day, !(1...31).contains(day) { return nil }
        if let hour, !(0...24).contains(hour) { return nil }
        if let minute, !(0...59).contains(minute) { return nil }
        if let second, !(0...60).contains(second) { return nil }
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    private static func parseDate(_ bytes: [UInt8], into value: inout VCardDateAndOrTime) -> Bool {
        let dash: UInt8 = 0x2D
        if bytes.starts(with: [dash, dash, dash]) {
            guard let day = number(bytes[3...]), bytes.count == 5 else { return false }
            value.day = day
            return true
        }
        if bytes.starts(with: [dash, dash]) {
            let rest = bytes[2...].filter { $0 != dash }
            switch rest.count {
            case 4:
                value.month = number(rest[0..<2])
                value.day = number(rest[2..<4])
            case 2:
                value.month = number(rest[0..<2])
            default:
                return false
            }
            return value.month != nil
        }
        let digits = bytes.filter { $0 != dash }
        guard digits.count == 4 || digits.count == 6 || digits.count == 8 else { return false }
        guard let year = number(digits[0..<4]) else { return false }
        value.year = year
        if digits.count >= 6 { value.month = number(digits[4..<6]); if value.month == nil { return false } }
        if digits.count == 8 { value.day = number(digits[6..<8]); if value.day == nil { return false } }
        return true
    }

    private static func parseTime(_ bytes: [UInt8], into value: inout VCardDateAndOrTime) -> Bool {
        var body = bytes
        if body.last == 0x5A || body.last == 0x7A {
            value.utcOffsetMinutes = 0
            body.removeLast()
        } else if let sign = body.lastIndex(where: { $0 == 0x2B || ($0 == 0x2D && true) }), sign > 0 {
            let offset = body[(sign + 1)...].filter { $0 != 0x3A }
            guard offset.count == 2 || offset.count == 4, let hours = number(offset[offset.startIndex..<offset.startIndex + 2]) else { return false }
            let minutes = offset.count == 4 ? (number(offset[(offset.startIndex + 2)...]) ?? 0) : 0
            value.utcOffsetMinutes = (body[sign] == 0x2D ? -1 : 1) * (hours * 60 + minutes)
            body = Array(body[..<sign])
        }
        // Truncated times: "-2200" (no hour), "--00" (seconds only).
        if body.starts(with: [0x2D, 0x2D]) {
            value.second = number(body[2...])
            return value.second != nil
        }
        if body.first == 0x2D {
            let rest = body.dropFirst().filter { $0 != 0x3A }
            guard rest.count == 2 || rest.count == 4 else { return false }
            value.minute = number(rest[rest.startIndex..<rest.startIndex + 2])
            if rest.count == 4 { value.second = number(rest[(rest.startIndex + 2)...]) }
            return value.minute != nil
        }
        let digits = body.filter { $0 != 0x3A }
        let whole = digits.split(separator: 0x2E, maxSplits: 1).first.map(Array.init) ?? digits
        guard [2, 4, 6].contains(whole.count) else { return false }
        value.hour = number(whole[0..<2])
        if whole.count >= 4 { value.minute = number(whole[2..<4]) }
        if whole.count == 6 { value.second = number(whole[4..<6]) }
        return value.hour != nil
    }

    /// The vCard 4.0 basic form: `19850412`, `--0412`, `T102200Z`, `19961022T140000+0100`.
    public var description: String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var text = ""
        if let year {
            text += String(year).count >= 4 ? String(year) : String(repeating: "0", count: 4 - String(year).count) + String(year)
            if let month { text += two(month); if let day { text += two(day) } }
        } else if let month {
            text += "--" + two(month) + (day.map(two) ?? "")
        } else if let day {
            text += "---" + two(day)
        }
        if hour != nil || minute != nil || second != nil {
            text += "T"
            if let hour { text += two(hour) } else { text += "-" }
            if let minute { text += two(minute) } else if second != nil { text += "-" }
            if let second { text += two(second) }
            if let offset = utcOffsetMinutes {
                if offset == 0 { text += "Z" } else {
                    text += (offset < 0 ? "-" : "+") + two(abs(offset) / 60) + two(abs(offset) % 60)
                }
            }
        }
        return text
    }
}
