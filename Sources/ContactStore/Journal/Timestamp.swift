/// UTC timestamps in the journal's and the remote document's spelling, `2025-05-01T09:30:00.000Z`,
/// without Foundation's date formatters (which cost microseconds per call; replay reads a hundred
/// thousand).
public enum UTCTimestamp {
    /// Milliseconds since 1970 now.
    static func now() -> Int64 { POSIX.now() / 1_000_000 }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` for milliseconds since 1970.
    public static func format(milliseconds: Int64) -> String {
        let parts = Parts(milliseconds: milliseconds)
        guard parts.hasFourDigitYear else { return parts.spelledOut }
        // Written in place: the journal formats one timestamp per line.
        return String(unsafeUninitializedCapacity: 24) { out in
            parts.write(into: UnsafeMutableRawBufferPointer(out))
            return 24
        }
    }

    /// Appends the UTF-8 of ``format(milliseconds:)`` to `out`, without making a String
    /// for it (a journal line holds one or two).
    static func append(milliseconds: Int64, to out: inout [UInt8]) {
        let parts = Parts(milliseconds: milliseconds)
        guard parts.hasFourDigitYear else {
            out.append(contentsOf: parts.spelledOut.utf8)
            return
        }
        var bytes: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { buffer in
            parts.write(into: buffer)
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[..<24]))
        }
    }

    /// The fields of a time.
    private struct Parts {
        var year, month, day, secondOfDay, millis: Int

        init(milliseconds: Int64) {
            millis = Int(((milliseconds % 1000) + 1000) % 1000)
            let seconds = (milliseconds - Int64(millis)) / 1000
            let days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
            secondOfDay = Int(seconds - Int64(days) * 86_400)
            (year, month, day) = UTCTimestamp.civil(fromDays: days)
        }

        /// Whether the time is spelled in exactly 24 bytes (``write(into:)``).
        var hasFourDigitYear: Bool { (0...9999).contains(year) }

        /// Writes the 24 bytes of a time with a four-digit year at the start of `out`.
        func write(into out: UnsafeMutableRawBufferPointer) {
            func put(_ value: Int, _ width: Int, at offset: Int) {
                var rest = value
                for k in stride(from: offset + width - 1, through: offset, by: -1) {
                    out[k] = UInt8(truncatingIfNeeded: 0x30 + rest % 10)
                    rest /= 10
                }
            }
            put(year, 4, at: 0)
            out[4] = 0x2D
            put(month, 2, at: 5)
            out[7] = 0x2D
            put(day, 2, at: 8)
            out[10] = 0x54
            put(secondOfDay / 3600, 2, at: 11)
            out[13] = 0x3A
            put(secondOfDay / 60 % 60, 2, at: 14)
            out[16] = 0x3A
            put(secondOfDay % 60, 2, at: 17)
            out[19] = 0x2E
            put(millis, 3, at: 20)
            out[23] = 0x5A
        }

        /// The same spelling for any year, also one outside 0…9999 (more or fewer digits, or a sign).
        var spelledOut: String {
            func pad(_ value: Int, _ width: Int) -> String {
                let text = String(value)
                return String(repeating: "0", count: max(0, width - text.count)) + text
            }
            return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
                + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(millis, 3))Z"
        }
    }

    /// Milliseconds since 1970 of an RFC 3339 UTC time, `2026-11-22T05:09:44.123Z` (`T` or `t`;
    /// any number of fraction digits, of which the first three count, or none; `Z`, `z` or
    /// `+00:00`); `nil` for anything else.
    public static func parse(_ text: some Collection<UInt8>) -> Int64? {
        let b = Array(text)
        guard b.count >= 20, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54 || b[10] == 0x74, b[13] == 0x3A, b[16] == 0x3A
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard b[index] >= 0x30 && b[index] <= 0x39 else { return nil }
                value = value * 10 + Int(b[index] - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var millis = 0
        if b[index] == 0x2E {
            index += 1
            var digits = 0
            while index < b.count, b[index] >= 0x30 && b[index] <= 0x39 {
                if digits < 3 { millis = millis * 10 + Int(b[index] - 0x30) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in min(digits, 3)..<3 { millis *= 10 }
        }
        let zone = b[index...]
        guard zone.elementsEqual([0x5A]) || zone.elementsEqual([0x7A]) || zone.elementsEqual(Array("+00:00".utf8)) else { return nil }
        let days = Int64(days(fromYear: year, month: month, day: day))
        return ((days * 86_400) + Int64(hour * 3600 + minute * 60 + second)) * 1000 + Int64(millis)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func days(fromYear year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day number since 1970-01-01.
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
