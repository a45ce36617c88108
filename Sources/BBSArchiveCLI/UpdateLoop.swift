import BBSArchive
import Foundation

/// `archive --every`: the value of the option, in whole seconds.
enum UpdateInterval {
    /// `90`, `90s`, `10m`, `1h`, `1h30m`, `1d` (units in that order, each
    /// at most once); nil for anything else, zero, or more than a year.
    static func seconds(_ text: String) -> Int? {
        let units: [(Character, Int)] = [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)]
        if let plain = Int(text), plain > 0, plain <= year { return plain }
        var total = 0
        var digits = ""
        var next = 0  // the first unit still allowed
        for character in text {
            if character.isASCII, character.isNumber {
                digits.append(character)
                guard digits.count <= 9 else { return nil }
                continue
            }
            guard !digits.isEmpty, let value = Int(digits),
                let found = units[next...].firstIndex(where: { $0.0 == character })
            else { return nil }
            total += value * units[found].1
            next = found + 1
            digits = ""
        }
        guard digits.isEmpty, total > 0, total <= year else { return nil }
        return total
    }

    private static let year = 366 * 86_400

    /// `seconds` as the option spells it: 600 is `10m`, 5400 `1h30m`.
    static func spelled(_ seconds: Int) -> String {
        var left = seconds
        var text = ""
        for (unit, size) in [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)] where left >= size {
            text += "\(left / size)\(unit)"
            left %= size
        }
        return text
    }
}

extension Runner {
    /// `archive --every`: fetches and builds, then again each `interval`
    /// seconds after the last update began (at once when it took longer),
    /// until a signal stops it (`StopNotice`: what was stored is kept).
    ///
    /// The store, the templates, the HTTP client with its open connections
    /// and the rate limiter are made once and kept: an update after one new
    /// reply to the bench's 100k-post store took 98 ms as `fetch` then
    /// `build` and 54 ms here (medians of 3 and 5, on ext4). Pages that
    /// failed are said and left to the next update, as a run's are to the
    /// next run; any other error ends the run as it ends `archive`. `--full`
    /// renders every page in the first build only. Templates are read once:
    /// a change to them shows from the next start.
    static func archive(_ boards: [String], every interval: Int, _ command: ArchiveCommand) async throws {
        let quiet = command.fetching.output.quiet
        let fetch = try fetchAction(boards, command.forum, command.storage, command.fetching)
        var build = buildAction(command.storage, command.building)
        build.threadRows = ThreadRowMemo()
        let opening = printer(command.fetching)
        let session = try await fetch.open(events: opening.handle)
        let templates = try await build.loadTemplates()
        let clock = ContinuousClock()
        var number = 0
        while true {
            number += 1
            let start = clock.now
            let printer = printer(command.fetching)
            let fetched: Archiver.Report
            do {
                fetched = try await fetch.run(in: session, events: printer.handle)
            } catch {
                printer.finish()
                throw error
            }
            summarize(fetched, printer, command.storage, command.fetching)
            let middle = clock.now
            let built = try build.run(store: session.store, templates: templates)
            let end = clock.now
            summarize(built, command.building, quiet: quiet, first: number == 1)
            build.full = false
            if let failure = failures(fetched.failures, listed: !quiet) {
                // What a run says to do (run it again) is what the next update does.
                let again = "; run the same command again to retry them"
                var line = failure.description
                if line.hasSuffix(again) { line.removeLast(again.count) }
                printError("bbsarchive: error: \(line); the next update tries again")
            }
            let next = start + .seconds(interval)
            let wait = max(0, (next - end).inSeconds)
            printer.update(
                number: number, fetch: (middle - start).inSeconds, build: (end - middle).inSeconds,
                threads: fetched.threadsFetched, written: built.written, next: Date().addingTimeInterval(wait),
                every: UpdateInterval.spelled(interval))
            try await Task.sleep(until: max(next, end), clock: clock)
        }
    }

    /// What `report` throws for `failures`, said instead of thrown.
    private static func failures(_ failures: [Archiver.Failure], listed: Bool) -> ArchiveError? {
        do {
            try report(failures, listed: listed)
            return nil
        } catch let error as ArchiveError {
            return error
        } catch {
            return .incomplete(failures: failures.map(\.description))
        }
    }
}
