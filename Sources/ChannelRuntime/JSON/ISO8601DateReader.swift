import Foundation

/// The everyday ISO 8601 date-time (`2025-01-26T12:00:00Z`, `…12:00:00.123+08:00`) read by hand
/// and turned into a `Date` by the Gregorian calendar, which is how `Date.ISO8601FormatStyle` builds
/// its result: the two agree to the bit (`ISO8601DateReaderTests` compares them on seeded dates),
/// at a quarter of the cost. Anything else (other forms, out-of-range fields, more than nine
/// fraction digits) is `nil`, and the caller asks `ISO8601FormatStyle`.
package enum ISO8601DateReader {
    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        return calendar
    }()
    private static let utc = TimeZone(secondsFromGMT: 0)!

    package static func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8(date(from:))
    }

    package static func date(from bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes.count >= 20, bytes.count <= 35 else { return nil }
        func digits(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for index in start..<(start + count) {
                let digit = Int(bytes[index]) - 48
                guard digit >= 0, digit <= 9 else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2),
              let hour = digits(11, 2), let minute = digits(14, 2), let second = digits(17, 2),
              year >= 1, (1...12).contains(month), day >= 1, day <= daysIn(month, of: year),
              hour <= 23, minute <= 59, second <= 59 else { return nil }

        var index = 19
        var nanosecond = 0
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
            let count = index - start
            guard count >= 1, count <= 9, let fraction = digits(start, count) else { return nil }
            nanosecond = fraction
            for _ in count..<9 { nanosecond *= 10 }
        }

        let zone: TimeZone
        if index == bytes.count - 1, bytes[index] == UInt8(ascii: "Z") {
            zone = utc
        } else if index == bytes.count - 6, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-"),
                  bytes[index + 3] == UInt8(ascii: ":"), let hours = digits(index + 1, 2), let minutes = digits(index + 4, 2),
                  hours <= 14, minutes <= 59 {
            let seconds = (hours * 3600 + minutes * 60) * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
            guard let offset = TimeZone(secondsFromGMT: seconds) else { return nil }
            zone = offset
        } else {
            return nil
        }
        let components = DateComponents(
            timeZone: zone, year: year, month: month, day: day, hour: hour, minute: minute, second: second, nanosecond: nanosecond)
        return calendar.date(from: components)
    }

    private static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
