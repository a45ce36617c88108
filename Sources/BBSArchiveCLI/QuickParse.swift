import ArgumentParser
import BBSArchive

/// The everyday command lines, `fetch`, `build` and `archive` with long
/// options and board names, read without ArgumentParser, into the same
/// command values ArgumentParser would make of them.
///
/// ArgumentParser reads a command's options by reflection (a `Mirror` of
/// every options group, and of its own `--generate-completion-script`
/// commands), and each type it meets for the first time makes the Swift
/// runtime scan every protocol conformance of the program: 18-25 M
/// instructions a run, paid by every `fetch` and every `build`, about a
/// quarter of a build that finds nothing to do.
///
/// Only what is plain is read here: the command's name first, then its
/// long options each followed by its value as the next argument, its
/// flags, and names that do not start with `-`, each option given once
/// (`--media-host` may repeat), every value one that converts, and the
/// options' checks passed. Anything else (`--help`, `--version`,
/// `--name=value`, `--`, an unknown or repeated option, a value that
/// starts with `-` or does not convert, an empty argument, the word
/// `help`, a check that fails) returns `nil`, and ArgumentParser reads the
/// line as before, with its messages and exit statuses.
/// `QuickParseTests` checks that both readings agree.
enum QuickParse {
    static func command(_ arguments: [String]) -> (any AsyncParsableCommand)? {
        guard let name = arguments.first else { return nil }
        let rest = arguments.dropFirst()
        switch name {
        case "fetch": return fetch(rest)
        case "build": return build(rest)
        case "archive": return archive(rest)
        default: return nil
        }
    }

    static func fetch(_ arguments: ArraySlice<String>) -> FetchCommand? {
        let options = forumOptions + storeOptions + fetchOptions + configOptions
        let flags = fetchFlags + lockFlags
        guard var given = Given(arguments, options: options, flags: flags, positionals: true),
            let forum = given.forum(), let storage = given.storage(), let fetching = given.fetching(),
            let locking = given.locking(), let configFile = given.configFile()
        else { return nil }
        var command = FetchCommand()
        command.boards = given.positionals
        command.forum = forum
        command.storage = storage
        command.fetching = fetching
        command.locking = locking
        command.configFile = configFile
        return command
    }

    static func build(_ arguments: ArraySlice<String>) -> BuildCommand? {
        let options = storeOptions + buildOptions + configOptions
        let flags = buildFlags + lockFlags + ["--quiet"]
        guard let given = Given(arguments, options: options, flags: flags, positionals: false),
            let storage = given.storage(), let building = given.building(), let locking = given.locking(),
            let configFile = given.configFile()
        else { return nil }
        var command = BuildCommand()
        command.storage = storage
        command.building = building
        command.locking = locking
        command.configFile = configFile
        command.quiet = given.flag("--quiet")
        return command
    }

    static func archive(_ arguments: ArraySlice<String>) -> ArchiveCommand? {
        let options = forumOptions + storeOptions + fetchOptions + (buildOptions + configOptions) + ["--every"]
        let flags = fetchFlags + buildFlags + lockFlags
        guard var given = Given(arguments, options: options, flags: flags, positionals: true),
            let forum = given.forum(), let storage = given.storage(), let fetching = given.fetching(),
            let building = given.building(), let locking = given.locking(), let configFile = given.configFile()
        else { return nil }
        var command = ArchiveCommand()
        command.boards = given.positionals
        command.forum = forum
        command.storage = storage
        command.fetching = fetching
        command.building = building
        command.locking = locking
        command.configFile = configFile
        command.every = given.string("--every")
        return command
    }

    // The long names of each options group, as ArgumentParser names them.
    static let forumOptions: [String] = ["--forum-url", "--source"]
    static let storeOptions: [String] = ["--store"]
    static let configOptions: [String] = ["--config"]
    static let fetchOptions: [String] = [
        "--pages", "--rate", "--connections", "--cookies", "--stop-after", "--tries", "--max-thread-pages",
        "--timeout", "--media-host", "--log-format",
    ]
    static let fetchFlags: [String] = ["--ignore-robots", "--quiet"]
    static let buildOptions: [String] = ["--out", "--templates", "--site-url"]
    static let buildFlags: [String] = ["--full"]
    static let lockFlags: [String] = ["--wait"]

    /// One command line's options, flags and names, each group's values
    /// made from them. Every wrapped property of a group is assigned (never
    /// read: an ArgumentParser property made by `init()` and not assigned
    /// holds no value).
    struct Given {
        private var values: [String: String] = [:]
        private var flags: [String] = []
        private var mediaHosts: [String] = []
        private(set) var positionals: [String] = []
        /// A value was given that does not convert.
        private var unreadable = false

        init?(_ arguments: ArraySlice<String>, options: [String], flags known: [String], positionals: Bool) {
            var index = arguments.startIndex
            while index < arguments.endIndex {
                let argument = arguments[index]
                index += 1
                guard !argument.isEmpty else { return nil }
                guard argument.hasPrefix("-") else {
                    guard positionals, argument != "help" else { return nil }
                    self.positionals.append(argument)
                    continue
                }
                if known.contains(argument) {
                    guard !flags.contains(argument) else { return nil }
                    flags.append(argument)
                } else if options.contains(argument) {
                    guard index < arguments.endIndex else { return nil }
                    let value = arguments[index]
                    index += 1
                    guard !value.isEmpty, !value.hasPrefix("-") else { return nil }
                    if argument == "--media-host" {
                        mediaHosts.append(value)
                    } else if values.updateValue(value, forKey: argument) != nil {
                        return nil
                    }
                } else {
                    return nil
                }
            }
        }

        func flag(_ name: String) -> Bool { flags.contains(name) }

        func string(_ name: String) -> String? { values[name] }

        /// The option's value converted as ArgumentParser converts it
        /// (`init?(argument:)`); one that does not convert marks the line unreadable.
        mutating func value<T: ExpressibleByArgument>(_ name: String, as: T.Type) -> T? {
            guard let text = values[name] else { return nil }
            guard let value = T(argument: text) else {
                unreadable = true
                return nil
            }
            return value
        }

        func forum() -> ForumOptions? {
            var forum = ForumOptions()
            forum.forumURL = string("--forum-url")
            forum.source = string("--source")
            return forum
        }

        func storage() -> StoreOptions? {
            var storage = StoreOptions()
            storage.store = string("--store")
            return storage
        }

        func locking() -> LockOptions? {
            var locking = LockOptions()
            locking.wait = flag("--wait")
            return locking
        }

        func configFile() -> ConfigOptions? {
            var config = ConfigOptions()
            config.config = string("--config")
            return config
        }

        mutating func fetching() -> FetchOptions? {
            var output = OutputOptions()
            output.quiet = flag("--quiet")
            output.logFormat = value("--log-format", as: OutputOptions.LogFormat.self)
            var fetching = FetchOptions()
            fetching.pages = value("--pages", as: Int.self)
            fetching.rate = value("--rate", as: Double.self)
            fetching.connections = value("--connections", as: Int.self)
            fetching.cookies = string("--cookies")
            fetching.ignoreRobots = flag("--ignore-robots")
            fetching.stopAfter = value("--stop-after", as: Int.self)
            fetching.tries = value("--tries", as: Int.self)
            fetching.maxThreadPages = value("--max-thread-pages", as: Int.self)
            fetching.timeout = value("--timeout", as: Int.self)
            fetching.mediaHosts = mediaHosts
            fetching.output = output
            // ArgumentParser's `validate()`: a line it refuses is left to it.
            guard !unreadable, (try? fetching.validate()) != nil else { return nil }
            return fetching
        }

        func building() -> BuildOptions? {
            var building = BuildOptions()
            building.out = string("--out")
            building.templates = string("--templates")
            building.siteURL = string("--site-url")
            building.full = flag("--full")
            return building
        }
    }
}
