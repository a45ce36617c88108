/// The words the generator draws from. Everything here is invented for the
/// replica; it only has to look like a Chinese BBS to a parser: mixed scripts,
/// full-width punctuation, odd spacing, and characters that need escaping.
enum TextCorpus {
    /// Board ids and their Chinese titles, in the order boards are created.
    static let boards: [(id: String, title: String)] = [
        ("Geography", "地理"), ("WorkLife", "职场"), ("FamilyLife", "家庭生活"),
        ("PieLove", "美食"), ("Travel", "旅游"), ("Photo", "摄影"),
        ("Reader", "读书"), ("Music", "音乐"), ("Movie", "电影"),
        ("History", "历史"), ("Astronomy", "天文"), ("Running", "跑步"),
        ("Cycling", "自行车"), ("Pet", "宠物"), ("Garden", "园艺"),
        ("Tea", "茶道"), ("Automobile", "汽车"), ("Programming", "程序设计"),
        ("Linux", "自由软件"), ("Mathematics", "数学"), ("Physics", "物理"),
        ("Chess", "国际象棋"), ("Weiqi", "围棋"), ("Football", "足球"),
        ("Basketball", "篮球"), ("Stock", "股市"), ("House", "房地产"),
        ("Joke", "笑话"), ("Poetry", "诗词"), ("Military", "军事"),
        ("Beijing", "北京"), ("Shanghai", "上海"),
    ]

    /// Section names by code; more sections than this get a number appended.
    static let sections: [String] = [
        "社区管理", "国内院校", "休闲娱乐", "五湖四海", "游戏运动",
        "社会信息", "知性感性", "文化人文", "学术科学", "电脑技术",
    ]

    /// Pieces of user ids: a stem, often followed by digits.
    static let userStems: [String] = [
        "wang", "li", "zhang", "liu", "chen", "yang", "zhao", "huang", "zhou", "wu",
        "sky", "moon", "river", "stone", "tiger", "panda", "fish", "cloud", "wind",
        "happy", "lazy", "blue", "green", "silent", "old", "little", "big",
        "sanford", "duke", "larry", "ranger", "pilot", "hunter", "coder", "reader",
        "Mike", "Tom", "Lucy", "Alex", "Kevin", "Nana", "Xiao", "Da",
    ]

    /// Upper-case ids in the style of D600 or HLWJSJ.
    static let capitalIds: [String] = ["D600", "HLWJSJ", "FLYBBS", "QQ2008", "SMTHer", "XYZ", "K9", "AB"]

    static let nickParts: [String] = [
        "飞翔的", "沉默的", "快乐的", "北方的", "南方的", "小", "老", "大",
        "鱼", "猫", "狼", "云", "石头", "行者", "书生", "船长", "土豆", "西瓜",
    ]

    /// Sticky thread titles; `{B}` becomes the board id.
    static let stickyTitles: [String] = [
        "【公告】本版版规，发帖前请阅读",
        "{B} 版上月文章数统计",
        "发帖注意事项，请大家谨慎遵守",
        "【提醒】禁止人身攻击",
    ]

    static let titles: [String] = [
        "今天的天气真不错", "有人去过那里吗？", "求推荐几本入门书", "说说你们那边的房价",
        "周末去哪儿玩比较好", "关于换工作的一点想法", "这个问题困扰我很久了", "[转载]一篇有意思的文章",
        "新手报到，请多关照", "家里老人的事情", "晒晒我的早餐", "第一次参加马拉松的体会",
        "有没有一起的", "请教一个技术问题", "又到了一年中最热的时候", "大家怎么看这件事",
        "Re: 还是那个老问题", "分享一组照片", "这家店还开着吗", "旧物整理，有需要的说",
        "孩子上学的问题", "夜里睡不着，随便聊聊", "Anyone here using Swift on Linux?", "A question about visas",
        "在美读大学  一年50万 州立大学", "地图上看到一个奇怪的地名", "为什么北方的冬天更好过", "年底了，总结一下",
    ]

    /// Titles carrying characters an archiver must escape; every board gets one.
    static let markupTitles: [String] = [
        "<b>粗体</b>标题 & \"引号\"测试",
        "Tom & Jerry <看过没有>",
        "\"最好的\"城市 & 最差的 <i>城市</i>",
    ]

    static let chineseSentences: [String] = [
        "我觉得这个事情没有那么简单。", "昨天下了一整天的雨，出门都不方便。",
        "楼主说得有道理，不过细节还要再看看。", "以前在学校的时候也遇到过类似的情况。",
        "这个价格在我们那里算是比较高的了。", "去年夏天我们全家去了一趟海边。",
        "说实话，我也不太清楚具体是怎么回事。", "有没有人知道官方的说法？",
        "顶一下，希望有懂行的人来回答。", "这种情况还是早点去医院看看比较好。",
        "每个地方的习惯都不一样，不能一概而论。", "我家附近新开了一家面馆，味道还行。",
        "看了半天没看懂，能不能再解释一下？", "感觉最近大家的讨论都很热烈。",
        "同意楼上的观点。", "时间过得真快，转眼又是一年。",
        "个人意见，仅供参考。", "这张地图画得挺清楚的。",
    ]

    static let latinSentences: [String] = [
        "I think the answer depends on the season.", "See the link in the first post for details.",
        "Not sure about that, but it sounds plausible.", "The train takes about 3 hours from here.",
        "OK, thanks for sharing!", "Price: 120 yuan, shipping included.",
        "version 2.1 fixed most of the problems", "BTW the museum is closed on Mondays.",
    ]

    /// Lines whose spacing the archiver must keep (runs and leading spaces).
    static let spacedLines: [String] = [
        "  缩进两格的一段话，模仿老式排版。",
        "列表：  第一项   第二项",
        "    code:  let x = 1",
        "A  B  C  三个选项都可以",
    ]

    static let imageNames: [String] = ["IMG_{n}.png", "截图{n}.png", "photo-{n}.png", "地图{n}.png"]

    /// Non-image attachments; `text` ones get UTF-8 text as their bytes.
    static let fileNames: [(name: String, text: Bool)] = [
        ("资料.txt", true), ("notes.zip", false), ("会议纪要.txt", true), ("data.bin", false),
    ]

    /// The one body line per board that would run script if left unescaped.
    static let scriptLine = "试试这个：<script>alert(1)</script> 会不会弹窗"

    // MARK: - Decorations drawn from a stream of their own (see BoardGenerator)

    /// Nicknames a parser can trip over: spaces, brackets, `&`, `<`.
    static let awkwardNicks: [String] = [
        "Delivery Done!", "Tom & Jerry", "小鱼(Fish)", "<无名氏>", "哈 哈  哈", "a&b<c>",
        "(括号)开头", "  前面有空格", "R&D 部门", "Joe (the plumber)",
    ]

    /// Signature lines; `\u{1B}[…m` are the ANSI codes as the BBS stores them.
    static let signatureLines: [String] = [
        "人生若只如初见", "Stay hungry, stay foolish.", "\u{1B}[1;34m蓝色的签名档\u{1B}[m",
        "我的博客：http://example.com/blog?id=1&lang=zh", "\u{1B}[33m★\u{1B}[m 路漫漫其修远兮 \u{1B}[33m★\u{1B}[m",
        "  两个空格开头的签名", "-- 不是分隔线的横线 --", "<签名> & 更多",
        "\u{1B}[1;32;40m绿字黑底\u{1B}[0m 普通字",
    ]

    /// Body lines with colours; `{s}` becomes a sentence. Every line ends
    /// with the colour reset, as posts written in the web editor do.
    /// Text drawn for an 80-column terminal, where a CJK character takes
    /// two columns: a box-drawn table (the first: every board has one), a
    /// table lined up with spaces, and ANSI art painted with backgrounds.
    static let artPieces: [[String]] = [
        [
            "┌────┬──┐",
            "│品名    │数量│",
            "├────┼──┤",
            "│apple   │  12│",
            "│香蕉bana│   7│",
            "│西瓜    │ 130│",
            "└────┴──┘",
        ],
        [
            "车次      出发    到达    历时",
            "G1        07:00   11:28   4:28",
            "复兴号    08:00   12:18   4:18",
            "D301次    19:32   07:16  11:44",
        ],
        [
            "\u{1B}[41m      \u{1B}[m  \u{1B}[42m      \u{1B}[m  \u{1B}[44m      \u{1B}[m  上",
            "\u{1B}[41m  红  \u{1B}[m  \u{1B}[42m  绿  \u{1B}[m  \u{1B}[44m  蓝  \u{1B}[m  中",
            "\u{1B}[41m      \u{1B}[m  \u{1B}[42m      \u{1B}[m  \u{1B}[44m      \u{1B}[m  下",
        ],
    ]

    static let colourLines: [String] = [
        "普通\u{1B}[1;31m红色的字\u{1B}[m普通",
        "\u{1B}[1;31m{s}\u{1B}[m",
        "前面是普通字，\u{1B}[33m{s}\u{1B}[0m后面也是普通字",
        "\u{1B}[44m蓝底白字\u{1B}[m {s}",
        "\u{1B}[1;32;40m{s}\u{1B}[m",
        "\u{1B}[1;33m重要\u{1B}[m：\u{1B}[35m{s}\u{1B}[m",
        "{s}\u{1B}[1;35m（完）\u{1B}[0m",
        "  \u{1B}[32m缩进  的绿字\u{1B}[m  后面两个空格",
    ]

    /// UBB tags, emoticons and bare URLs, which the BBS keeps as plain text.
    static let ubbLines: [String] = [
        "[b]粗体[/b]和[i]斜体[/i]",
        "[color=red]红[/color]色的UBB",
        "看这里：[url=http://example.com/a?x=1&y=2]链接[/url]",
        "哈哈[em01][em02]",
        "原文在 http://example.com/path?a=1&b=2 可以看到",
        "https://example.org/新闻/2016 里也有",
        "[size=5]大字[/size] [email=a@example.com]写信[/email]",
    ]

    /// Lines with characters GBK lacks (GB18030 gives them four bytes).
    static let beyondGBKLines: [String] = [
        "表情👍也能存吗", "生僻字𠮷野家",
    ]

    static let likeMessages: [String] = [
        "说得好", "同意", "楼主多虑了", "不敢苟同", "顶！", "学习了，谢谢分享",
        "看看 <这个> & 那个", "呵呵", "赞👍", "有道理，不过还要看具体情况",
    ]
}
