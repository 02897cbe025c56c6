/// A calendar date whose year may be unknown (vCard 4.0 `--0415`).
struct CalendarDate: Sendable, Hashable {
    var year: Int?
    var month: Int
    var day: Int

    /// The basic format: `19800415`, or `--0415` without a year.
    var basic: String {
        if let year {
            DecimalText.padded(year, 4) + DecimalText.padded(month, 2) + DecimalText.padded(day, 2)
        } else {
            "--" + DecimalText.padded(month, 2) + DecimalText.padded(day, 2)
        }
    }

    /// The extended format: `1980-04-15`, or `--04-15` without a year.
    var extended: String {
        if let year {
            DecimalText.padded(year, 4) + "-" + DecimalText.padded(month, 2) + "-" + DecimalText.padded(day, 2)
        } else {
            "--" + DecimalText.padded(month, 2) + "-" + DecimalText.padded(day, 2)
        }
    }
}

/// A UTC timestamp, as in REV.
struct Timestamp: Sendable, Hashable {
    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int

    /// The basic format: `20190304T102030Z`.
    var basic: String {
        DecimalText.padded(year, 4) + DecimalText.padded(month, 2) + DecimalText.padded(day, 2) + "T"
            + DecimalText.padded(hour, 2) + DecimalText.padded(minute, 2) + DecimalText.padded(second, 2) + "Z"
    }

    /// The extended format: `2019-03-04T10:20:30Z`.
    var extended: String {
        DecimalText.padded(year, 4) + "-" + DecimalText.padded(month, 2) + "-" + DecimalText.padded(day, 2) + "T"
            + DecimalText.padded(hour, 2) + ":" + DecimalText.padded(minute, 2) + ":" + DecimalText.padded(second, 2)
            + "Z"
    }
}

/// A position in millionths of a degree, formatted without floating point.
struct GeoPoint: Sendable, Hashable {
    var latitudeMicrodegrees: Int
    var longitudeMicrodegrees: Int

    var latitude: String { DecimalText.degrees(latitudeMicrodegrees) }
    var longitude: String { DecimalText.degrees(longitudeMicrodegrees) }

    /// The point as an RFC 5870 URI: `geo:48.137154,11.576124`.
    var uri: String { "geo:" + latitude + "," + longitude }
}

/// A time zone: a name from the tz database or a UTC offset.
enum TimeZoneValue: Sendable, Hashable {
    case named(String)
    case offset(minutes: Int)

    /// A vCard 4.0 utc-offset: `-0500`.
    static func basicOffset(_ minutes: Int) -> String {
        let sign = minutes < 0 ? "-" : "+"
        let magnitude = abs(minutes)
        return sign + DecimalText.padded(magnitude / 60, 2) + DecimalText.padded(magnitude % 60, 2)
    }

    /// A vCard 3.0 utc-offset: `-05:00`.
    static func extendedOffset(_ minutes: Int) -> String {
        let sign = minutes < 0 ? "-" : "+"
        let magnitude = abs(minutes)
        return sign + DecimalText.padded(magnitude / 60, 2) + ":" + DecimalText.padded(magnitude % 60, 2)
    }
}

/// A vCard 4.0 GENDER value: sex (M, F, O, N, U or empty) and free-form identity.
struct Gender: Sendable, Hashable {
    var sex: String
    var identity: String?
}

/// A vCard 4.0 RELATED value.
struct Relation: Sendable, Hashable {
    var type: String
    /// A URI such as `urn:uuid:…`, or nil when ``text`` is used.
    var uri: String?
    var text: String?
}

/// What is needed to recreate a photo: its size and the seed of its bytes.
struct PhotoSpec: Sendable, Hashable {
    var byteCount: Int
    var seed: UInt64
}

/// Integer formatting that never depends on the platform's locale or floating point.
enum DecimalText {
    /// `value` in decimal, left-padded with zeros to `width` digits.
    static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// Millionths of a degree as `-12.345678`.
    static func degrees(_ microdegrees: Int) -> String {
        let sign = microdegrees < 0 ? "-" : ""
        let magnitude = abs(microdegrees)
        return sign + String(magnitude / 1_000_000) + "." + padded(magnitude % 1_000_000, 6)
    }
}
