import json, sqlite3, subprocess, os, sys
# Writes tests/data/companion-bench.jsonl: six players each tell the guardian
# about themselves through `heartvale chat` (the memories are what the town
# stores), then ask in other words. Usage: python3 scripts/companion-bench.py [HEARTVALE]
HV = sys.argv[1] if len(sys.argv) > 1 else "target/debug/heartvale"
# Each player: what they tell (key -> message), what else they say, then the
# questions asked later in other words (question -> key of the message that answers it).
players = {
 "p1": {
  "told": {
   "name": "我叫林夏，叫我小林就好", "job": "我是一名护士，在市医院上夜班", "home": "我老家在云南大理",
   "pet": "我养了一只橘猫，它叫豆包", "birthday": "我的生日是五月十二号", "food": "我最爱吃酸汤鱼",
   "worry": "最近夜班太多，我压力很大", "family": "我妈妈在老家种茶", "plan": "我打算秋天回大理看看",
   "dislike": "我讨厌下雨天", "like": "我喜欢爬山"},
  "other": ["你还记得我叫什么吗？", "你喜欢什么？", "你几岁了？", "今天天气不错", "医院里来了个很可爱的小朋友", "下班路上看到晚霞了", "今天几号？"],
  "asked": {"我叫啥来着": "name", "你记得我的名字吗": "name", "我是做什么工作的": "job", "我在哪上班你还记得吗": "job",
            "我老家是哪的": "home", "我是哪里人来着": "home", "我家猫叫什么名字": "pet", "那只橘猫叫啥": "pet",
            "我生日是哪天你记得吗": "birthday", "我最爱吃的是什么": "food", "我妈妈在做什么，你还记得吗": "family",
            "我最近在烦什么你知道吗": "worry"}},
 "p2": {
  "told": {
   "name": "我的名字是陈默", "job": "我是做程序员的，天天写代码", "home": "我是哈尔滨人",
   "pet": "我家有条柴犬，名字叫可乐", "birthday": "我是12月1日出生的", "food": "我超喜欢吃锅包肉",
   "worry": "我担心明年会被裁员", "person": "我女朋友叫小雪", "plan": "我准备明年去考研",
   "like": "我喜欢打篮球"},
  "other": ["你在干什么呢", "你觉得人为什么会孤单？", "今天加班到很晚", "我是不是很啰嗦", "你叫什么名字？", "下雪了"],
  "asked": {"你还记得我叫什么吗": "name", "我是干哪行的来着": "job", "我从哪来的你知道吗": "home",
            "我家那只狗叫啥": "pet", "你还记得可乐是什么狗吗": "pet", "我几月几号生日": "birthday",
            "你知道我爱吃什么吗": "food", "我女朋友叫什么来着": "person", "我最近在担心什么": "worry",
            "我打算做什么来着": "plan", "我的爱好是什么你还记得吗": "like"}},
 "p3": {
  "told": {
   "name": "大家都叫我阿杰", "job": "我在一家咖啡店当店员", "home": "我来自广州",
   "pet": "我养了一只仓鼠，它叫团子", "birthday": "我的生日在8月20号", "food": "我最喜欢的食物是肠粉",
   "family": "我有一个妹妹", "dislike": "我不喜欢吃香菜", "worry": "我最近失眠，总是睡不着", "like": "我喜欢拍照"},
  "other": ["早上好", "咖啡店今天好忙", "你会一直在这里吗？", "谢谢你", "晚安", "你喜欢下雨吗？"],
  "asked": {"我叫什么你还记得吗": "name", "我在哪里工作": "job", "我是做什么的": "job", "我老家在哪": "home",
            "我养的是什么小动物": "pet", "团子是什么你知道吗": "pet", "我的生日是几号": "birthday",
            "我最爱吃什么": "food", "我讨厌吃什么来着": "dislike", "我最近有什么心事": "worry", "我有兄弟姐妹吗，你还记得吗": "family"}},
 "p4": {
  "told": {
   "name": "我叫王一一", "job": "我是小学老师，教语文", "home": "我在海边长大",
   "pet": "我家的猫叫年糕，是只狸花猫", "birthday": "我的生日是三月三号", "food": "我爱吃饺子",
   "family": "我爸爸是渔民", "worry": "我最近很焦虑，班上有个孩子总不说话", "plan": "我打算暑假去西藏",
   "like": "我喜欢读诗"},
  "other": ["你好呀", "今天批改了好多作文", "你在想什么？", "你几岁了", "好久不见", "我今天有点累"],
  "asked": {"我的名字你还记得吗": "name", "我是什么职业": "job", "我教什么的来着": "job", "我在哪长大的": "home",
            "年糕是什么猫": "pet", "我家猫叫什么": "pet", "我哪天过生日": "birthday", "我爱吃什么来着": "food",
            "我爸爸是做什么的": "family", "我暑假打算去哪": "plan", "我最近在焦虑什么": "worry"}},
 "p5": {
  "told": {
   "name": "叫我老周吧", "job": "我在工地上班，开挖掘机", "home": "我是四川人",
   "pet": "我有一只鹦鹉，名字叫八哥", "birthday": "我是10月1日生的", "food": "我最爱吃火锅",
   "family": "我儿子今年上大学了", "worry": "我担心儿子在外地吃不好", "plan": "我决定过年前戒烟", "like": "我喜欢钓鱼"},
  "other": ["今天太阳好大", "你好", "你平时都干嘛", "我不太会说话", "哈哈", "你吃饭了吗？"],
  "asked": {"你该怎么叫我来着": "name", "你还记得我是谁吗": "name", "我是干什么活的": "job", "我是哪里人": "home",
            "我的鹦鹉叫什么": "pet", "我生日是几月几号": "birthday", "我爱吃什么": "food", "我儿子怎么了来着": "family",
            "我在担心什么": "worry", "我打算戒什么来着": "plan", "我有什么爱好": "like"}},
 "p6": {
  "told": {
   "name": "我叫苏晴", "job": "我是一名设计师", "home": "我老家是杭州的",
   "pet": "我有一只金毛，叫旺财", "birthday": "我的生日是七月七号", "food": "我最喜欢的菜是西湖醋鱼",
   "person": "我室友特别吵", "worry": "我最近工作压力大，老是加班", "plan": "我计划下个月换工作", "dislike": "我讨厌加班"},
  "other": ["嗨", "今天画了一天图", "你知道西湖吗？", "好无聊", "你喜欢什么颜色", "我先走了"],
  "asked": {"你记得我叫什么吗": "name", "我做什么工作的来着": "job", "我家乡在哪": "home", "我的狗叫啥": "pet",
            "旺财是什么狗来着": "pet", "我的生日你记得吗": "birthday", "我最喜欢吃什么菜": "food",
            "我室友怎么样来着": "person", "我最近压力大是因为什么": "worry", "我打算什么时候换工作": "plan"}},
}
out = []
pairs = 0
for pid, p in players.items():
    msgs = list(p["told"].values())
    other = p["other"]
    # Interleave: told facts, then the other lines, over two days.
    lines = msgs[:6] + other[:3] + ["/wait 1"] + msgs[6:] + other[3:] + ["/wait 2"]
    open(f"{pid}.txt", "w").write("\n".join(lines) + "\n")
    db = f"{pid}.db"
    if os.path.exists(db): os.remove(db)
    subprocess.run([HV, "chat", "guardian", "--input", f"{pid}.txt", "--save", db], check=True, capture_output=True)
    con = sqlite3.connect(db)
    rows = con.execute("SELECT seq, time, kind, importance, text FROM memories WHERE resident='guardian' AND kind='chat' ORDER BY seq").fetchall()
    ids = {}
    for seq, t, kind, imp, text in rows:
        mid = f"{pid}-m{seq}"
        ts = con.execute("SELECT datetime(?, 'unixepoch')", (t,)).fetchone()[0][:16]
        out.append({"kind": "memory", "id": mid, "resident": pid, "time": ts, "text": text, "importance": max(1, round(imp / 10))})
        for key, m in p["told"].items():
            if f"「{m}」" in text:
                ids[key] = mid
    last = max(r[1] for r in rows)
    qt = con.execute("SELECT datetime(?, 'unixepoch')", (last + 3 * 86400,)).fetchone()[0][:16]
    for i, (q, key) in enumerate(p["asked"].items()):
        out.append({"kind": "query", "id": f"{pid}-q{i}", "resident": pid, "time": qt, "text": q, "expect": [ids[key]]})
        pairs += 1
with open("tests/data/companion-bench.jsonl", "w") as f:
    for o in out:
        f.write(json.dumps(o, ensure_ascii=False) + "\n")
print(pairs, "pairs", len(out), "lines", file=sys.stderr)
