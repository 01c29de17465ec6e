import Foundation

/// The everyday ISO 8601 date-time (`2025-01-26T12:00:00Z`, `…12:00:00.123+08:00`) read by hand
/// and turned into a `Date` with the Gregorian calendar's own arithmetic, which is how
/// `Date.ISO8601FormatStyle` builds its result: the two agree to the bit (`ISO8601DateReaderTests`
/// compares them on seeded dates), at a fraction of the cost. Anything else (other forms,
/// out-of-range fields, more than nine fraction digits) is `nil`, and the caller asks
/// `ISO8601FormatStyle`.
package enum ISO8601DateReader {
    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        return calendar
    }()

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
        // RFC 3339 (section 5.6) also allows `t` and `z` in lowercase.
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] | 0x20 == UInt8(ascii: "t"),
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

        let offset: Int
        if index == bytes.count - 1, bytes[index] | 0x20 == UInt8(ascii: "z") {
            offset = 0
        } else if index == bytes.count - 6, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-"),
                  bytes[index + 3] == UInt8(ascii: ":"), let hours = digits(index + 1, 2), let minutes = digits(index + 4, 2),
                  hours <= 14, minutes <= 59 {
            offset = (hours * 3600 + minutes * 60) * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
        } else {
            return nil
        }
        // Before the Gregorian calendar began (1582-10-15) the calendar counts Julian dates: its call.
        guard year > 1582 else {
            let components = DateComponents(
                timeZone: TimeZone(secondsFromGMT: offset), year: year, month: month, day: day,
                hour: hour, minute: minute, second: second, nanosecond: nanosecond)
            return calendar.date(from: components)
        }
        // The calendar's steps, in its order, so the `Double` rounds the same: the Julian day
        // (counted from noon) to seconds since 2001, back to midnight, the time of day, the offset.
        let julianDay = daysSince1970(year: year, month: month, day: day) + julianDayOf1970
        var time = Date(timeIntervalSinceReferenceDate: (Double(julianDay) - julianDayOf2001) * 86400) - 43200
        var timeOfDay = Double(hour) * 3600
        timeOfDay += Double(minute) * 60
        timeOfDay += Double(second)
        timeOfDay += Double(nanosecond) / 1_000_000_000
        time = time + timeOfDay
        return time - Double(offset)
    }

    /// The Julian day number of 1970-01-01 (its noon), and the Julian date of 2001-01-01 00:00 UTC.
    private static let julianDayOf1970 = 2_440_588
    private static let julianDayOf2001 = 2_451_910.5

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar: years counted from
    /// March (so February's leap day ends a year), in 400-year cycles of 146 097 days.
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let marchYear = month > 2 ? year : year - 1
        let cycle = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfCycle = marchYear - cycle * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfCycle = yearOfCycle * 365 + yearOfCycle / 4 - yearOfCycle / 100 + dayOfYear
        // 719 468 days from 0000-03-01, where cycles start, to 1970-01-01.
        return cycle * 146_097 + dayOfCycle - 719_468
    }

    private static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
