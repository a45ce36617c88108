import Foundation
import SMTHReplica
import Testing

@testable import BBSArchive

/// Sections, hot topics and users, from both front ends.
@Suite(.serialized) struct OtherPageKindsTests {
    @Test func readsTheRealUserJSON() throws {
        let page = FetchedPage(
            url: "https://www.newsmth.net/nForum/user/query/mozilla.json",
            body: try Fixtures.data("nforum/user-query-mozilla.json"), contentType: "application/json",
            fetchedAt: Date())
        guard case .user(let user) = try SMTHNForumSource().parse(page) else {
            Issue.record("not a user")
            return
        }
        #expect(user.id == "mozilla")
        #expect(user.nick == "Delivery Done!")
        #expect(user.posts == 7779)
        #expect(user.level == "用户")
        #expect(user.gender == "m")
        #expect(user.lastLoginAt == Date(timeIntervalSince1970: 1_459_772_464))
    }

    /// Fetches one page of the replica and parses it with `source`.
    func page(_ path: String, _ source: any ForumSource, base: String) async throws -> ForumPage {
        let response = try await CurlHTTPClient().get(base + path, headers: source.requestHeaders)
        return try source.parse(
            FetchedPage(
                url: response.url, body: response.body, contentType: response.header("Content-Type"),
                fetchedAt: response.fetchedAt))
    }

    @Test func readsHotTopicsFromBothFrontEnds() async throws {
        let forum = ReplicaForum(config: ReplicaConfig(seed: 9, sections: 2, boardsPerSection: 2, threadsPerBoard: 12))
        let server = ReplicaServer(forum: forum)
        let base = try await server.start().absoluteString
        let expected: [String] = forum.hotTopics().map { topic in "\(topic.board)/\(topic.gid)" }
        #expect(!expected.isEmpty)
        let pages: [(source: any ForumSource, path: String)] = [
            (SMTHMobileSource(baseURL: base), "/hot"), (SMTHNForumSource(baseURL: base), "/nForum/mainpage?ajax"),
        ]
        for (source, path) in pages {
            guard case .hot(let hot) = try await page(path, source, base: base) else {
                Issue.record("\(path) is not hot topics")
                continue
            }
            let topics: [String] = hot.topics.map { topic in "\(topic.board)/\(topic.gid)" }
            #expect(topics == expected, "\(path)")
            let complete = hot.topics.filter { topic in !topic.title.isEmpty && topic.replies != nil }
            #expect(complete.count == hot.topics.count)
        }
        await server.stop()
    }

    /// A hot topic's count is read as a list row's (`ReplyCount`): in any
    /// script's digits, with separators, rounded (`1.2k`: at least 1,200)
    /// or in full-width brackets, and taken off the title; one that is no
    /// count stays in the title.
    @Test func hotTopicCountsAreReadInAnyDigitsOnBothFrontEnds() throws {
        let cases: [(written: String, replies: Int?, title: String)] = [
            ("(12)", 12, "标题"), ("(１２)", 12, "标题"), ("(1,017)", 1017, "标题"), ("(1.2k)", 1200, "标题"),
            ("（１２）", 12, "标题"), ("(二十)", nil, "标题(二十)"),
        ]
        let mobile = SMTHMobileSource(baseURL: "https://m.newsmth.net")
        let nforum = SMTHNForumSource(baseURL: "https://www.newsmth.net")
        for (index, item) in cases.enumerated() {
            let mobilePage = """
                <html><body><div id="m_main"><ul class="slist sec"><li><a href="/article/Test/\(700 + index)">标题\(item.written)</a></li></ul></div></body></html>
                """
            let nforumPage = """
                <div id="top10"><ul><li><a href="/nForum/article/Test/\(700 + index)" title="标题">标题</a>&ensp;\(item.written)</li></ul></div>
                """
            for (source, url, body) in [
                (mobile as any ForumSource, "https://m.newsmth.net/hot", mobilePage),
                (nforum, "https://www.newsmth.net/nForum/mainpage?ajax", nforumPage),
            ] {
                let page = FetchedPage(
                    url: url, body: Data(body.utf8), contentType: "text/html; charset=utf-8", fetchedAt: Date())
                guard case .hot(let hot) = try source.parse(page), let topic = hot.topics.first else {
                    Issue.record("\(url) «\(item.written)»: no hot topic")
                    continue
                }
                #expect(topic.replies == item.replies, "\(url) «\(item.written)»")
                // nForum's title is the link's own; the mobile one's count is cut off it.
                if source is SMTHMobileSource { #expect(topic.title == item.title, "«\(item.written)»") }
            }
        }
    }

    @Test func readsSectionsFromBothFrontEnds() async throws {
        let forum = ReplicaForum(config: ReplicaConfig(seed: 9, sections: 2, boardsPerSection: 2, threadsPerBoard: 12))
        let server = ReplicaServer(forum: forum)
        let base = try await server.start().absoluteString
        guard case .sections(let sections) = try await page("/section", SMTHMobileSource(baseURL: base), base: base)
        else {
            Issue.record("/section is not a section list")
            return
        }
        let parsedCodes: [String] = sections.sections.map(\.code).sorted()
        let forumCodes: [String] = forum.sections.map(\.code).sorted()
        #expect(parsedCodes == forumCodes)
        for section in forum.sections {
            let parsed = sections.sections.first { entry in entry.code == section.code }
            #expect(parsed?.boards == section.boardNames)
            #expect(parsed?.parent == section.parent)
        }
        let first = try #require(forum.sections.first)
        let nforum = SMTHNForumSource(baseURL: base)
        guard case .sections(let one) = try await page("/nForum/section/\(first.code)?ajax", nforum, base: base) else {
            Issue.record("the nForum section is not a section list")
            return
        }
        let boards: [String]? = one.sections.first?.boards
        #expect(boards == first.boardNames)
        await server.stop()
    }

    @Test func readsUsersFromBothFrontEnds() async throws {
        let forum = ReplicaForum(config: ReplicaConfig(seed: 9, sections: 1, boardsPerSection: 1, threadsPerBoard: 6))
        let server = ReplicaServer(forum: forum)
        let base = try await server.start().absoluteString
        let post = try #require(forum.board(named: forum.boardNames[0])?.threads.first?.posts.first)
        let mobilePage = try await page("/user/query/\(post.author)", SMTHMobileSource(baseURL: base), base: base)
        let nforum = SMTHNForumSource(baseURL: base)
        let jsonPage = try await page("/nForum/user/query/\(post.author).json", nforum, base: base)
        guard case .user(let mobileUser) = mobilePage, case .user(let jsonUser) = jsonPage else {
            Issue.record("the user pages did not parse as users")
            return
        }
        #expect(mobileUser.id == post.author)
        #expect(jsonUser.id == post.author)
        #expect(mobileUser.nick == post.nick)
        #expect(jsonUser.nick == post.nick)
        do {
            _ = try await page("/nForum/user/query/nobody42.json", nforum, base: base)
            Issue.record("an unknown user parsed")
        } catch {
            #expect("\(error)".contains("用户不存在"))
        }
        await server.stop()
    }

    @Test func aLoginWallOnTheDesktopSiteNamesCookies() async throws {
        let config = ReplicaHarness.small
        let harness = try await ReplicaHarness.start(config, faults: ReplicaFaults(loginBoard: config.boardName))
        let report = try await harness.fetch(source: SMTHNForumSource(baseURL: harness.base))
        await harness.stop()
        #expect(report.failures.map(\.error) == [.needsLogin(board: harness.board, cookies: .none)])
    }

    @Test func parsePrintsNicksAndQuotesOfDesktopPages() async throws {
        let harness = try await ReplicaHarness.start()
        let board = try #require(harness.forum.board(named: harness.board))
        var found: (gid: Int, post: ReplicaPost)?
        for thread in board.threads where found == nil {
            if let post = thread.posts.first(where: { $0.floor < 10 && $0.lines.first?.hasPrefix("【 在") == true }) {
                found = (thread.gid, post)
            }
        }
        let (gid, post) = try #require(found)
        let url = SMTHNForumSource(baseURL: harness.base).threadURL(board: harness.board, gid: gid, page: 1)
        let response = try await CurlHTTPClient().get(url, headers: [("X-Requested-With", "XMLHttpRequest")])
        await harness.stop()
        let file = harness.folder.appendingPathComponent("thread.html")
        try response.body.write(to: file)
        let outcome = try await CommandLineTests().run(["parse", "--source", "smth-nforum", file.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        #expect(json["kind"] as? String == "thread")
        let posts = try #require(json["posts"] as? [[String: Any]])
        let item = try #require(posts.first { entry in entry["floor"] as? Int == post.floor })
        #expect(item["nick"] as? String == post.nick)
        let quote = try #require(item["quote"] as? [String: Any])
        let quotedAuthor = try #require(quote["author"] as? String)
        #expect(post.lines[0].contains(quotedAuthor))
        #expect(quote["lines"] is [String])
    }
}
