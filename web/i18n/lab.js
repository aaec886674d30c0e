// String table: lab (keys "lab.*"). English and Simplified Chinese, the same keys in both.
// The analysis lab's views (web/lab/*.js), the formulas box (web/views/formulas.js,
// "lab.formulas.*") and the words of the exports a person reads (web/export/files.js and the import
// view's exports, "lab.export.*"; CSV headers and JSON keys stay English: they are data formats).
// Vocabulary follows the course's Chinese articles (the seeds): 熵, 归一化熵, 有效上下文大小 N_eff,
// top-k 质量, 注意力汇 (sink), 内容分布, 隧道视野, 奇异值, 平稳分布, 有效秩.
// Written as [English, Chinese] pairs so the two cannot drift apart; split below.
const s = (n, one, many) => `${n} ${n === 1 ? one : many}`;

const PAIRS = {
  // Shared words
  'lab.undefined': ['undefined', '未定义'],
  'lab.table': ['table (scrolls sideways)', '表格（可横向滚动）'],
  'lab.masked': ['masked', '已掩码'],
  'lab.empty': ['empty', '空行'],
  'lab.headN': ['head {i}', '头 {i}'],
  'lab.keyN': ['key {j}', '键 {j}'],
  'lab.queryRow': ['Query row', '查询行'],
  'lab.col.query': ['query', '查询'],
  'lab.col.visible': ['visible', '可见键'],
  'lab.col.row': ['row', '行'],
  'lab.col.key': ['key', '键'],
  'lab.col.token': ['token', '词元'],
  'lab.col.head': ['head', '头'],
  'lab.col.value': ['value', '数值'],
  'lab.yes': ['yes', '是'],
  'lab.no': ['no', '否'],
  // A lab number box's refusal (web/lab/lab-controls.js numberInput), before "Keeping {kept}."
  'lab.err.whole': ['{what} takes a whole number, not {text}.', '{what}必须是整数，{text} 不是整数。'],
  'lab.err.range': ['{what} must be in {range}; {text} is outside it.', '{what}必须在 {range} 之内，{text} 超出了这个范围。'],

  // View titles (the lab's tabs)
  'lab.title.patterns': ['Head patterns', '注意力头模式'],
  'lab.title.normalisers': ['Normalisers', '归一化函数'],
  'lab.title.sink': ['Sink vs content', '注意力汇与内容'],
  'lab.title.routing': ['Routing width', '路由宽度'],
  'lab.title.saturation': ['Saturation', '饱和'],
  'lab.title.spectral': ['Spectral', '谱分析'],
  'lab.title.linear': ['Linear attention', '线性注意力'],
  'lab.title.sweep': ['Angle sweep (lesson)', '参数实验（课程）'],
  'lab.title.sensitivity': ['Sensitivity (lesson)', '敏感度（课程）'],

  // Pattern classes (the core's classify_pattern; also the import view)
  'lab.pattern.sink': ['sink (first token)', '注意力汇（首个词元）'],
  'lab.pattern.self': ['self (same position)', '自身（同一位置）'],
  'lab.pattern.previous': ['previous token', '前一个词元'],
  'lab.pattern.next': ['next token', '后一个词元'],
  'lab.pattern.offset': ['offset', '偏移'],
  'lab.pattern.strided': ['strided', '跨步'],
  'lab.pattern.position': ['fixed position', '固定位置'],
  'lab.pattern.global': ['global (broad)', '全局（宽泛）'],
  'lab.patternShort.sink': ['sink', '注意力汇'],
  'lab.patternShort.self': ['self', '自身'],
  'lab.patternShort.previous': ['previous', '前一个'],
  'lab.patternShort.next': ['next', '后一个'],
  'lab.patternShort.offset': ['offset', '偏移'],
  'lab.patternShort.strided': ['strided', '跨步'],
  'lab.patternShort.position': ['position', '固定位置'],
  'lab.patternShort.global': ['global', '全局'],
  'lab.patternParam.position': [' key {key}', ' 键 {key}'],

  // Head patterns
  'lab.patterns.intro': [
    'Each head is classified from its weights: sink (first key), self / previous / next token, ' +
      'offset (one diagonal, e.g. an induction stripe), strided (a period), fixed position (one key column), global (broad). ' +
      "The score of a class is the mean mass it explains (the project's analysis notes define each class).",
    '每个注意力头都按其权重归类：注意力汇（第一个键）、自身 / 前一个 / 后一个词元、偏移（一条对角线，例如归纳头的斜条纹）、' +
      '跨步（有周期）、固定位置（某一列键）、全局（分布宽泛）。某一类的分数是它所能解释的平均质量（各类的定义见项目的分析说明）。',
  ],
  'lab.patterns.caption': ['Scores of every class, {name}', '{name} 在各类模式上的分数'],

  // Normalisers
  'lab.norm.intro': [
    'The same scores z = S / τ of every row, normalised three ways. Softmax gives every visible key some weight; ' +
      'sparsemax and α-entmax (α > 1) can give exactly 0, so the attention graph loses edges. Entropy in nats over the non-zero weights.',
    '对每一行的同一组分数 z = S / τ 用三种方式归一化。softmax 给每个可见键都分配一些权重；sparsemax 和 α-entmax（α > 1）' +
      '可以给出精确的 0，注意力图因此失去一些边。熵以奈特为单位，只在非零权重上计算。',
  ],
  'lab.norm.help.softmax': [
    'exp(z) / Σ exp: every visible key gets weight > 0 (exact zeros only by underflow)',
    'exp(z) / Σ exp：每个可见键的权重都 > 0（只有下溢时才会出现精确的 0）',
  ],
  'lab.norm.help.sparsemax': [
    '[z − θ]₊ with Σ = 1 ({martins}): keys below the threshold θ get exactly 0',
    '[z − θ]₊，且 Σ = 1（{martins}）：低于阈值 θ 的键权重恰为 0',
  ],
  'lab.norm.help.entmax': [
    '[(α−1) z − θ]₊^(1/(α−1)) with Σ = 1 ({peters} et al. 2019): between softmax (α = 1) and sparsemax (α = 2)',
    '[(α−1) z − θ]₊^(1/(α−1))，且 Σ = 1（{peters} 等 2019）：介于 softmax（α = 1）与 sparsemax（α = 2）之间',
  ],
  'lab.norm.method.softmax': ['α = 1 is softmax', 'α = 1 即 softmax'],
  'lab.norm.method.exact-1.5': ['exact sort-based algorithm for α = 1.5', 'α = 1.5 的精确排序算法'],
  'lab.norm.method.sparsemax': ['α = 2 is sparsemax', 'α = 2 即 sparsemax'],
  'lab.norm.method.bisection': ['bisection on θ, {n} halvings, renormalised', '对 θ 二分查找，{n} 次折半，再重新归一化'],
  'lab.norm.alphaSliderAria': ['entmax alpha (slider)', 'entmax 的 α（滑块）'],
  'lab.norm.alphaAria': ['entmax alpha', 'entmax 的 α'],
  'lab.norm.alphaNote': [
    '{min} = softmax, 1.5 = exact 1.5-entmax, 2 = sparsemax, up to {max}; the core refuses values outside [{min}, {max}].',
    '{min} = softmax，1.5 = entmax（精确算法），2 = sparsemax，最大 {max}；超出 [{min}, {max}] 的值会被计算核心拒绝。',
  ],
  'lab.norm.entropy': ['entropy H', '熵 H'],
  'lab.norm.support': ['support', '支撑集'],
  'lab.norm.supportOf': ['{n} of {m} keys', '{m} 个键中的 {n} 个'],
  'lab.norm.zeros': ['exact zeros', '精确的 0'],
  'lab.norm.zerosCol': ['zeros', '零的个数'],
  'lab.norm.threshold': ['threshold θ', '阈值 θ'],
  'lab.norm.thresholdHelp': [
    'threshold θ on the scale of the formula, after subtracting the row maximum',
    '公式尺度上的阈值 θ（已减去该行最大值）',
  ],
  'lab.norm.noThreshold': ['none (never exactly 0)', '无（从不恰为 0）'],
  'lab.norm.maskedHidden': ['{n} masked keys not shown', '未显示 {n} 个被掩码的键'],
  'lab.norm.rowsCaption': [
    'Every row: entropy H (nats) and exact zeros among the visible keys, α = {alpha}, τ = {tau}',
    '每一行：熵 H（奈特）及可见键中精确为 0 的个数，α = {alpha}，τ = {tau}',
  ],
  'lab.norm.footer': [(v) => `mean H / total zeros (${s(v.n, 'non-empty row', 'non-empty rows')})`, '平均 H / 零的总数（{n} 个非空行）'],
  'lab.norm.title': [
    (v) => `: ${s(v.n, 'visible key', 'visible keys')}, τ = ${v.tau}; entmax by ${v.method}`,
    '：{n} 个可见键，τ = {tau}；entmax 的计算方式：{method}',
  ],
  'lab.norm.empty': [
    'This row is empty: the mask leaves it no visible key, so every normaliser is undefined here (weights 0, entropy undefined).',
    '这一行是空行：掩码没有给它留下任何可见键，因此三种归一化在这里都没有定义（权重为 0，熵未定义）。',
  ],

  // Sink vs content (compositional rows; seed 001)
  'lab.undefinedEmptyRow': ['undefined (empty row: no visible key)', '未定义（空行：没有可见键）'],
  'lab.sink.metric.jsd': ['JSD (nats)', '詹森-香农散度（奈特）'],
  'lab.sink.metric.cosine': ['cosine', '余弦'],
  'lab.sink.metric.entropyGap': ['|ΔH| (nats)', '|ΔH|（奈特）'],
  'lab.sink.legend.sink': ['h(s): how the row splits between sink and content', 'h(s)：这一行在注意力汇与内容之间如何分配'],
  'lab.sink.legend.spread': ['s·H(σ): spread over the sink keys', 's·H(σ)：在各个汇键之间的分散程度'],
  'lab.sink.legend.content': ['(1−s)·H(c): spread over the content keys', '(1−s)·H(c)：在内容键之间的分散程度'],
  'lab.sink.rowsCaption': [
    'Each row of {name}: H = h(s) + {parts}(1−s)·H(c), nats',
    '{name} 的每一行：H = h(s) + {parts}(1−s)·H(c)，单位为奈特',
  ],
  'lab.sink.col.parts': ['H = parts', 'H = 各部分'],
  'lab.sink.col.residual': ['residual', '残差'],
  'lab.sink.rowBarAria': ['row {row}: H {h}', '第 {row} 行：H {h}'],
  'lab.sink.undefinedS1': ['undefined (s = 1)', '未定义（s = 1）'],
  'lab.sink.mean': ['mean {what}', '平均 {what}'],
  'lab.sink.headsCaption': [
    'Per head, means over its non-empty rows (mean H = mean h(s) + {parts}mean (1−s)·H(c))',
    '逐头统计：对其非空行取平均（平均 H = 平均 h(s) + {parts}平均 (1−s)·H(c)）',
  ],
  'lab.sink.undefinedAllEmpty': ['undefined (every row is empty)', '未定义（每一行都是空行）'],
  'lab.sink.contentRows': ['{h} ({n} rows)', '{h}（{n} 行）'],
  'lab.sink.undefinedS1All': ['undefined (s = 1 in every row)', '未定义（每一行都有 s = 1）'],
  'lab.sink.undefinedWhy': ['undefined: {why}', '未定义：{why}'],
  'lab.sink.noRow': ['no row', '没有可比较的行'],
  'lab.sink.sinkShare': [' (sink {pct}%)', '（注意力汇占 {pct}%）'],
  'lab.sink.rowsWhy': ['{n} rows; {why}', '{n} 行；{why}'],
  'lab.sink.rowsN': ['{n} rows', '{n} 行'],
  'lab.sink.col.heads': ['heads', '注意力头'],
  'lab.sink.col.rows': ['rows', '行数'],
  'lab.sink.col.aitchison': ['{aitchison} d_A (mean over rows)', '{aitchison} 距离 d_A（对行取平均）'],
  'lab.sink.keep': ['keep', '保留'],
  'lab.sink.drop': ['drop', '去掉'],
  'lab.sink.col.dsq': ['mean d² = sink² + content²', '平均 d² = 汇² + 内容²'],
  'lab.sink.col.dsqWithin': ['mean d² = sink² + content² + within-sink²', '平均 d² = 汇² + 内容² + 汇内²'],
  'lab.sink.flip': [
    'keep-sink: {r} closer to {near} than to {far}; drop-sink: the reverse',
    '保留注意力汇时：{r} 与 {near} 更接近、与 {far} 较远；去掉注意力汇时：恰好相反',
  ],
  'lab.sink.flipName.jsd': ['Jensen-Shannon divergence', '詹森-香农散度'],
  'lab.sink.flipName.cosine': ['cosine similarity', '余弦相似度'],
  'lab.sink.flipName.entropyGap': ['entropy gap |ΔH|', '熵差 |ΔH|'],
  'lab.sink.flipsTitle': [
    'Flips: "R is closer to P than to Q" under keep-sink vs drop-sink',
    '结论翻转：“R 与 P 比与 Q 更接近”在保留汇与去掉汇两种约定下是否一致',
  ],
  'lab.sink.flipsNeedThree': [
    'A flip needs three heads (a reference and two others); this state has {n}.',
    '判断翻转需要三个注意力头（一个参照头和另外两个）；当前状态只有 {n} 个。',
  ],
  'lab.sink.flipCount': [
    ': {count} of {triples} triples flip{pct}; with {name} as R: {mine}',
    '：{triples} 个三元组中有 {count} 个翻转{pct}；以 {name} 为 R 时：{mine} 个',
  ],
  'lab.sink.flipListed': [' (among the first {n} listed)', '（在列出的前 {n} 个之中）'],
  'lab.sink.flipMore': ['… and {n} more with this reference.', '……以这个头为参照的还有 {n} 个。'],
  'lab.sink.flipEvery': ['every listed flip ({n})', '列出的全部翻转（{n} 个）'],
  'lab.sink.split.termwise': [
    'term by term: [h(s₂)−h(s₁)] + [(1−s₂)H(c₂) − (1−s₁)H(c₁)]',
    '逐项：[h(s₂)−h(s₁)] + [(1−s₂)H(c₂) − (1−s₁)H(c₁)]',
  ],
  'lab.sink.split.sinkFirst': ['s first, then c', '先变 s，再变 c'],
  'lab.sink.split.contentFirst': ['c first, then s', '先变 c，再变 s'],
  'lab.sink.split.shapley': ['{shapley} (mean of the two orders)', '{shapley} 值（两种顺序的平均）'],
  'lab.sink.attrUndefined': [
    'undefined: no row has a content distribution in both (s = 1, or empty rows).',
    '未定义：没有一行在两边都有内容分布（s = 1 或空行）。',
  ],
  'lab.sink.attrChange': [
    'mean H {before} → {after} nats: change {total} over {n} rows',
    '平均 H {before} → {after} 奈特：在 {n} 行上变化 {total}',
  ],
  'lab.sink.attrNoChange': [' (no change to split).', '（没有变化可分解）。'],
  'lab.sink.attrShare': ['; the sink carries {pct}% of it ({shapley}).', '；其中注意力汇占 {pct}%（{shapley} 值）。'],
  'lab.sink.col.split': ['split', '分解方式'],
  'lab.sink.col.sinkPart': ['sink part', '注意力汇部分'],
  'lab.sink.col.contentPart': ['content part', '内容部分'],
  'lab.sink.col.sum': ['sum', '合计'],
  'lab.sink.compareAria': ['compare with head', '与哪个头比较'],
  'lab.sink.none': ['none', '无'],
  'lab.sink.intro': [
    'A row of attention is a composition: the sink mass s on the first {keys} and the content distribution c = a₁:/(1−s) over the rest. ' +
      'Its entropy splits exactly, H = h(s) + (1−s)·H(c), and any comparison of rows can keep the sink (full rows) or drop it ' +
      "(compare c only): the two can disagree on which heads are alike. Idea: {citeSink}; the formulas are in the project's mathematical notes.",
    '注意力的一行是成分数据：前 {keys}上的注意力汇质量 s，加上其余键上的内容分布 c = a₁:/(1−s)。它的熵可以精确分解为 ' +
      'H = h(s) + (1−s)·H(c)；比较两行时既可以保留注意力汇（完整的行），也可以去掉它（只比较 c）：两种约定对“哪些头相似”' +
      '可能给出不同的结论。思路来自 {citeSink}；公式见项目的数学说明。',
  ],
  'lab.sink.firstKey': ['key', '1 个键'],
  'lab.sink.firstKeys': ['{n} keys', '{n} 个键'],
  'lab.sink.sinkKeys': ['sink keys', '汇键个数'],
  'lab.sink.compareWith': ['compare with', '比较对象'],
  'lab.sink.compareTau': ['compare at τ', '比较的 τ'],
  'lab.sink.residual': ['Largest |residual| of the identity on this head: {r} nats.', '这个头上恒等式的最大 |残差|：{r} 奈特。'],
  'lab.sink.pairsCaption': [
    '{name} against every other head: keep-sink (full rows) vs drop-sink (content only), means over the rows where both are defined',
    '{name} 与其他每个头的比较：保留注意力汇（完整的行）与去掉注意力汇（只看内容），对两者都有定义的行取平均',
  ],
  'lab.sink.allPairs': ['all {n} pairs of heads', '全部 {n} 对注意力头'],
  'lab.sink.everyPair': ['Every pair of heads', '每一对注意力头'],
  'lab.sink.aitchisonLogits': [
    '{aitchison} distance from the logits (clr = centred scores / τ); its square splits exactly into the sink balance term and the content term.',
    '{aitchison} 距离由 logits 计算（中心对数比变换 = 中心化分数 / τ）；它的平方可精确分解为注意力汇的平衡项与内容项。',
  ],
  'lab.sink.aitchisonLogWeights': [
    '{aitchison} distance from the log-weights (clr = centred scores / τ); its square splits exactly into the sink balance term and the content term.',
    '{aitchison} 距离由对数权重计算（中心对数比变换 = 中心化分数 / τ）；它的平方可精确分解为注意力汇的平衡项与内容项。',
  ],
  'lab.sink.oneHead': [
    'One head: no other head to compare with (load a state with several heads).',
    '只有一个注意力头：没有可比较的其他头（请加载含多个头的状态）。',
  ],
  'lab.sink.attrTitle': ['Entropy change: how much is the sink, how much the content', '熵的变化：多少来自注意力汇，多少来自内容'],
  'lab.sink.attrTau': ['τ = {from} → {to} ({name})', 'τ = {from} → {to}（{name}）'],

  // Routing width (seed 000: attention entropy and dynamic topology)
  'lab.rowTitle': ['Row', '行'],
  'lab.undefinedEmpty': ['undefined (empty row)', '未定义（空行）'],
  'lab.routing.edgeTitle': ['query {q} reads key {k}: {kt} with weight {w}', '查询 {q} 以权重 {w} 读取键 {k}：{kt}'],
  'lab.routing.graphAria': [
    'attention graph: {n} edges above the threshold {threshold}',
    '注意力图：权重超过阈值 {threshold} 的边共 {n} 条',
  ],
  'lab.routing.graphAriaCross': [
    'attention graph (queries above, keys below): {n} edges above the threshold {threshold}',
    '注意力图（上方为查询，下方为键）：权重超过阈值 {threshold} 的边共 {n} 条',
  ],
  'lab.routing.noRow': ['no row selected', '未选中任何行'],
  'lab.routing.emptyRow': [
    'undefined: this row has no visible key (empty row), so it has no support set, no entropy and no tunnel verdict.',
    '未定义：这一行没有可见键（空行），因此没有支撑集、没有熵，也无法判断隧道视野。',
  ],
  'lab.routing.noValues': [
    'No value vectors V in this state: the bound on the ignored output needs them ({bmax}).',
    '当前状态没有值向量 V：被忽略输出的上界需要用到它们（{bmax}）。',
  ],
  'lab.routing.bound': [
    'Ignored output ‖Σ_{i∉S} a_i v_i‖ = {norm} ≤ {massB} = {mass} ≤ δ·B = {delta}',
    '被忽略的输出 ‖Σᵢ∉ₛ aᵢ vᵢ‖ = {norm} ≤ {massB} = {mass} ≤ δ·B = {delta}',
  ],
  'lab.routing.tunnel': ['Tunnel vision: {verdict}', '隧道视野：{verdict}'],
  'lab.routing.narrow': ['narrow', '窄'],
  'lab.routing.notNarrow': ['not narrow', '不窄'],
  'lab.routing.broad': ['broad evidence', '证据分布宽'],
  'lab.routing.notBroad': ['evidence not broad', '证据分布不宽'],
  'lab.routing.tunnelUndefined': [
    "Tunnel vision: undefined (the evidence β has no mass on this row's visible keys).",
    '隧道视野：未定义（证据 β 在这一行的可见键上没有质量）。',
  ],
  'lab.routing.support': [
    'S_t for δ = {delta}: {n} of {m} visible keys hold {mass} ≥ 1 − δ; ignored mass {ignored}.',
    'δ = {delta} 时的 Sₜ：{m} 个可见键中的 {n} 个占有 {mass} ≥ 1 − δ 的质量；被忽略的质量为 {ignored}。',
  ],
  'lab.routing.reg.minimise': ['minimise entropy (narrow routing)', '最小化熵（窄路由）'],
  'lab.routing.reg.maximise': ['maximise entropy (broad routing)', '最大化熵（宽路由）'],
  'lab.routing.reg.target': ['entropy towards H* = {h}', '把熵拉向 H* = {h}'],
  'lab.routing.regTitle': [
    'Entropy regularisers of this head (λ × value is added to the task loss), over {n} non-empty rows',
    '这个头的熵正则项（λ × 数值加到任务损失上），基于 {n} 个非空行',
  ],
  'lab.routing.col.regulariser': ['regulariser', '正则项'],
  'lab.routing.col.formula': ['formula', '公式'],
  'lab.routing.col.value': ['value', '数值'],
  'lab.routing.col.supportKeys': ['S_t (keys)', 'Sₜ（键）'],
  'lab.routing.col.ignoredMass': ['ignored mass', '被忽略的质量'],
  'lab.routing.col.ignoredNorm': ['ignored ‖·‖', '被忽略的 ‖·‖'],
  'lab.routing.col.tunnel': ['tunnel', '隧道视野'],
  'lab.routing.rowsSummary': [
    'every row ({n}); {tunnel} of {defined} rows show tunnel vision',
    '全部 {n} 行；{defined} 行中有 {tunnel} 行出现隧道视野',
  ],
  'lab.routing.betaPlaceholder': ['uniform over the visible keys', '在可见键上均匀分布'],
  'lab.routing.betaAria': [
    'evidence beta: {n} numbers >= 0, comma-separated (empty = uniform)',
    '证据 β：{n} 个 ≥ 0 的数，用逗号分隔（留空 = 均匀）',
  ],
  'lab.routing.intro': [
    'A head is a graph built from the input: each query reads the keys with its weights. ' +
      'Entropy measures how wide that routing is: N_eff = exp(H) keys. The (1−δ) support S_t is the fewest keys holding 1−δ of the mass; ' +
      'the output they leave out is at most {dmax}. Tunnel vision: narrow attention ({hna} < α) where the evidence β is broad ({hnb} > γ). ' +
      "Source: the seed article on attention entropy and dynamic topology; the formulas are in the project's mathematical notes.",
    '一个注意力头就是由输入动态生成的一张图：每个查询按自己的权重读取各个键。熵衡量这种路由有多宽：有效上下文大小 N_eff = exp(H) 个键。' +
      '(1−δ) 支撑集 Sₜ 是占有 1−δ 质量所需的最少键；它们之外的输出至多为 {dmax}。隧道视野：在证据 β 分布宽（{hnb} > γ）时，' +
      '注意力却很窄（{hna} < α）。出处：关于注意力熵与动态拓扑的种子文章；公式见项目的数学说明。',
  ],
  'lab.routing.edgeThreshold': ['edge threshold', '边的阈值'],
  'lab.routing.beta': ['evidence β ({n} keys)', '证据 β（{n} 个键）'],
  'lab.routing.uniform': ['uniform', '均匀'],
  'lab.routing.graphTitle': [
    'Graph of {name}: {n} edges with weight > {threshold}; N_eff at each query',
    '{name} 的注意力图：权重 > {threshold} 的边共 {n} 条；每个查询下标出 N_eff',
  ],

  // Saturation (seed 000 §6: softmax gradient saturation)
  'lab.sat.jacobianCaption': [
    'Jacobian ∂a_i/∂z_j = (a_i [i = j] − a_i a_j) / τ, τ = {tau}',
    '雅可比矩阵 ∂aᵢ/∂zⱼ = (aᵢ [i = j] − aᵢ aⱼ) / τ，τ = {tau}',
  ],
  'lab.sat.jacobianTop': [' (the {n} keys of largest weight)', '（权重最大的 {n} 个键）'],
  'lab.sat.gradCaption': [
    "Entropy gradient ∂H/∂z_j = −(1/τ) a_j (ln a_j + H): raising key j's score by {dz} changes H by ∂H/∂z_j · {dz}. ∂H/∂τ = {d} nats per unit τ.",
    '熵的梯度 ∂H/∂zⱼ = −(1/τ) aⱼ (ln aⱼ + H)：把键 j 的分数提高 {dz}，H 就改变 ∂H/∂zⱼ · {dz}。∂H/∂τ = {d} 奈特（每单位 τ）。',
  ],
  'lab.sat.col.weight': ['weight a_j', '权重 aⱼ'],
  'lab.sat.col.grad': ['∂H/∂z_j (nats)', '∂H/∂zⱼ（奈特）'],
  'lab.sat.undefinedOneKey': ['undefined (one visible key)', '未定义（只有一个可见键）'],
  'lab.sat.intro': [
    'Softmax saturates when one score leads by many τ: the weights stop moving when the scores move (the Jacobian → 0), ' +
      'so a suppressed key gets almost no gradient. With two keys everything depends on x = Δ / τ, the gap between the two scores over the temperature; ' +
      'the plots show that curve and mark where this row sits, using its two largest scores.',
    '当某个分数领先其他分数许多个 τ 时，softmax 就会饱和：分数变化时权重几乎不动（雅可比矩阵 → 0），被压低的键几乎得不到梯度。' +
      '只有两个键时，一切只取决于 x = Δ / τ，即两个分数之差除以温度；下面的曲线画出这种关系，并用这一行最大的两个分数标出它所处的位置。',
  ],
  'lab.sat.title': [(v) => `: ${s(v.n, 'visible key', 'visible keys')}, τ = ${v.tau}`, '：{n} 个可见键，τ = {tau}'],
  'lab.sat.empty': [
    'This row is empty: the mask leaves it no visible key, so its gap, Jacobian and gradients are undefined.',
    '这一行是空行：掩码没有给它留下任何可见键，因此它的分数差、雅可比矩阵和梯度都没有定义。',
  ],
  'lab.sat.single': [
    'One visible key: a point mass. There is no gap, the Jacobian is 0 and the entropy cannot move.',
    '只有一个可见键：权重集中在一点。没有分数差，雅可比矩阵为 0，熵也无法改变。',
  ],
  'lab.sat.gap': ['gap Δ', '分数差 Δ'],
  'lab.sat.gapHelp': ['largest minus second-largest visible score S (before τ)', '可见分数 S 中最大值减去第二大值（除以 τ 之前）'],
  'lab.sat.a1Help': ['the larger weight if the row had only its two top keys', '假如这一行只有分数最高的两个键，较大的那个权重'],
  'lab.sat.topWeight': ['largest weight (this row)', '最大权重（本行）'],
  'lab.sat.topWeightHelp': ['equals a₁ when the row has exactly two visible keys', '这一行恰好有两个可见键时等于 a₁'],
  'lab.sat.h2': ['H(x), two keys', 'H(x)，两个键'],
  'lab.sat.entropy': ['H (this row)', 'H（本行）'],
  'lab.sat.perTau': ['{v} nats per unit τ', '{v} 奈特（每单位 τ）'],
  'lab.sat.dhdtauHelp': ['how fast the entropy grows with the temperature', '熵随温度增长的速度'],
  'lab.sat.frobeniusHelp': [
    '{frobenius} norm of the whole Jacobian; 0 = fully saturated',
    '整个雅可比矩阵的 {frobenius} 范数；0 表示完全饱和',
  ],
  'lab.sat.maxabsHelp': ['largest entry of the whole Jacobian (at most 1/(4τ))', '整个雅可比矩阵中绝对值最大的元素（至多 1/(4τ)）'],
  'lab.sat.range': ['plot x from −R to R, R = ', '横轴 x 从 −R 到 R，R = '],
  'lab.sat.keys': ['Jacobian keys at most ', '雅可比矩阵最多显示的键数 '],
  'lab.sat.keysWhat': ['the number of Jacobian keys', '雅可比矩阵显示的键数'],
  'lab.sat.plotA1': ['Larger weight of two keys: a₁ = σ(Δ/τ)', '两个键中较大的权重：a₁ = σ(Δ/τ)'],
  'lab.sat.plotH': ['Entropy of two keys: H(Δ/τ) (nats)', '两个键的熵：H(Δ/τ)（奈特）'],
  'lab.sat.offplot': [
    "This row's x = {x} is beyond the plotted range ±{r}: its point is drawn at the edge.",
    '这一行的 x = {x} 超出了绘图范围 ±{r}：它的点画在边缘上。',
  ],

  // Sensitivity (the lesson, seed 003: mixing weight vs causal contribution)
  'lab.notAvailable': ['Not available for this head: {reason}.', '这个注意力头无法使用此分析：{reason}。'],
  'lab.sens.keyPrefix': ['key {j} ', '键 {j} '],
  'lab.sens.comma': [', ', '、'],
  'lab.sens.and': [' and ', ' 和 '],
  'lab.sens.sentenceSep': [' ', ''],
  'lab.sens.only': [
    'Only {key} is visible: its weight is 1 and the output is its value. Changing that value moves the output one for one; ' +
      'moving its key or score changes nothing (a single weight stays 1); deleting it leaves the row empty (undefined).',
    '只有{key}可见：它的权重为 1，输出就是它的值。改变这个值，输出随之等量改变；移动它的键或分数则什么也不变（单独一个权重始终为 1）；' +
      '删除它会让这一行变成空行（未定义）。',
  ],
  'lab.sens.tie': ['{keys} tie for the largest weight (a = {a})', '{keys}并列拥有最大权重（a = {a}）'],
  'lab.sens.largest': ['{key} has the largest weight (a = {a})', '{key}的权重最大（a = {a}）'],
  'lab.sens.values': [
    'For the values themselves, yes: {who}, and ∂o/∂v_j = a_j I, so changing value j by Δ moves the output by exactly a_j Δ; ' +
      'no other value moves it more per unit change.',
    '就值本身而言，答案是肯定的：{who}，而 ∂o/∂vⱼ = aⱼ I，所以把值 j 改变 Δ，输出恰好改变 aⱼ Δ；按单位变化计，没有别的值能让输出变得更多。',
  ],
  'lab.sens.whatKey': ['its key vector', '键向量'],
  'lab.sens.whatScore': ['its score', '分数'],
  'lab.sens.butMoving': [
    'But moving {what} is another matter: {key} moves the output most ({sym} = {effect}, against {topEffect} for {top}), ' +
      'because ∂o/∂s_j = a_j (v_j − o)/τ and its value lies far from the output (‖v_j − o‖ = {distance} against {topDistance}).',
    '但移动{what}就是另一回事了：{key}对输出的影响最大（{sym} = {effect}，而{top}只有 {topEffect}），' +
      '因为 ∂o/∂sⱼ = aⱼ (vⱼ − o)/τ，而它的值离输出很远（‖vⱼ − o‖ = {distance}，对比 {topDistance}）。',
  ],
  'lab.sens.alsoMoving': [
    'Moving {what} also moves the output most for {keys} ({sym} = {effect}).',
    '移动{what}时，对输出影响最大的同样是{keys}（{sym} = {effect}）。',
  ],
  'lab.sens.deleting': [
    'Deleting a token and renormalising: removing {key} shifts the output most (‖o₋ⱼ − o‖ = {shift}, against {topShift} for {top}).',
    '删除一个词元并重新归一化：去掉{key}时输出移动最多（‖o₋ⱼ − o‖ = {shift}，而{top}只有 {topShift}）。',
  ],
  'lab.sens.alsoDeleting': [
    'Deleting {keys} and renormalising also shifts the output most (‖o₋ⱼ − o‖ = {shift}).',
    '删除{keys}并重新归一化，同样使输出移动最多（‖o₋ⱼ − o‖ = {shift}）。',
  ],
  'lab.sens.caveat': [
    "A weight describes one mixing step of one head; it does not measure a token's causal effect on the model's prediction.",
    '权重描述的只是一个头的一步信息混合；它并不衡量某个词元对模型预测的因果贡献。',
  ],
  'lab.sens.firstPlace': ['first place', '第一名'],
  'lab.sens.first': [' ★1st', ' ★第一'],
  'lab.sens.col.weight': ['weight a_j', '权重 aⱼ'],
  'lab.sens.col.deletion': ['‖o₋ⱼ − o‖ (delete j, renormalise)', '‖o₋ⱼ − o‖（删除 j 并重新归一化）'],
  'lab.sens.caption': [
    'Row {row}: what each visible key does to the output o = Σ a_j v_j (★1st marks the first place of each column)',
    '第 {row} 行：每个可见键对输出 o = Σ aⱼ vⱼ 的影响（★第一 标出每一列的第一名）',
  ],
  'lab.sens.undefinedLeftEmpty': ['undefined (row left empty)', '未定义（该行变为空行）'],
  'lab.sens.intro': [
    'The lesson asks: does the largest weight mark the value whose change moves the output most? ' +
      'For the selected row, o = Σ a_j v_j: a value enters with its weight (∂o/∂v_j = a_j I), but a key or score enters through the softmax, ' +
      'where ∂o/∂s_j = a_j (v_j − o)/τ also depends on how far the value lies from the output; deleting a token renormalises the rest.',
    '课程提出的问题是：权重最大的位置，是否就是改变后最能影响输出的那个值？对选中的行，o = Σ aⱼ vⱼ：值按它的权重进入输出' +
      '（∂o/∂vⱼ = aⱼ I），而键或分数要经过 softmax，其中 ∂o/∂sⱼ = aⱼ (vⱼ − o)/τ 还取决于该值离输出有多远；删除一个词元会让其余的重新归一化。',
  ],
  'lab.sens.empty': [
    'Row {row} is empty: the mask leaves it no visible key, so its weights, output and every sensitivity are undefined.',
    '第 {row} 行是空行：掩码没有给它留下任何可见键，因此它的权重、输出和各项敏感度都没有定义。',
  ],
  'lab.sens.masked': [
    'Masked for row {row} (weight 0, no effect on the output): {keys}.',
    '第 {row} 行中被掩码的键（权重为 0，对输出没有影响）：{keys}。',
  ],
  'lab.sens.title': ['Query row {row} {token}: o = ({o}), τ = {tau}', '查询行 {row} {token}：o = ({o})，τ = {tau}'],
  'lab.sens.titleQkv': [', ‖q‖ = {q}, scale = {scale}', '，‖q‖ = {q}，缩放因子 = {scale}'],
  'lab.sens.noKeys': [
    'Mode {mode}: there are no key vectors, so the table gives the derivative with respect to each score s_j.',
    '输入方式为“{mode}”：没有键向量，因此表中给出对每个分数 sⱼ 的导数。',
  ],
  'lab.sens.longShift': [
    'd_v = {dv}: the shift vectors o₋ⱼ − o are in {api}, the table gives their lengths.',
    'dᵥ = {dv}：位移向量 o₋ⱼ − o 见 {api}，表中只给出它们的长度。',
  ],

  // Spectral (seed 004: the linear-algebra view of attention)
  'lab.spec.epsilonAria': ['epsilon of the threshold rank (0 < ε < 1)', '阈值秩的 ε（0 < ε < 1）'],
  'lab.spec.epsilon': ['threshold rank ε', '阈值秩 ε'],
  'lab.spec.epsilonNote': ['counts σᵢ > ε·σ₁; 0 < ε < 1, default 0.01', '统计 σᵢ > ε·σ₁ 的个数；0 < ε < 1，默认 0.01'],
  'lab.spec.piTitle': ['Stationary distribution π (π A = π)', '平稳分布 π（π A = π）'],
  'lab.spec.undefinedReason': ['undefined: {reason}.', '未定义：{reason}。'],
  // The core's reasons (cpp/src/core/spectral.cpp), worded again by web/lab/spectral.js.
  'lab.spec.reasonNotSquare': [
    'A is {rows} x {cols}: a stationary distribution needs a square matrix (queries = keys)',
    'A 是 {rows} × {cols}：平稳分布需要方阵（查询数 = 键数）',
  ],
  'lab.spec.reasonNoRows': ['A has no rows', 'A 没有行'],
  'lab.spec.reasonEmptyRows': [
    (v) => `${v.n} ${v.n === 1 ? 'row is' : 'rows are'} empty (no visible key): A is not row-stochastic, so it is not a Markov chain`,
    '{n} 行为空（没有可见键）：A 不是行随机矩阵，因此不是马尔可夫链',
  ],
  'lab.spec.piNote': [
    'A row-stochastic A is a Markov chain on the tokens (query t moves to key j with probability A[t, j]); ' +
      'π is where a long walk spends its time. Power iteration from uniform on (I + A)/2 (same π, no periodicity). ' +
      'In a causal head whose queries all put some weight on earlier keys, every walk ends at token 0: π = e₀.',
    '行随机矩阵 A 是词元上的一条马尔可夫链（查询 t 以概率 A[t, j] 转移到键 j）；π 描述长时间随机游走在各处停留的比例。' +
      '从均匀分布出发，在 (I + A)/2 上做幂迭代（π 不变，且消除周期性）。在一个因果头中，若每个查询都给更早的键一些权重，' +
      '那么所有游走最终都停在词元 0：π = e₀。',
  ],
  'lab.spec.converged': [(v) => `converged after ${v.steps} step${v.n === 1 ? '' : 's'} of (I + A)/2`, '(I + A)/2 迭代 {steps} 步后收敛'],
  'lab.spec.notConverged': [
    (v) => `NOT converged after ${v.steps} step${v.n === 1 ? '' : 's'} of (I + A)/2`,
    '(I + A)/2 迭代 {steps} 步后仍未收敛',
  ],
  'lab.spec.squarings': [
    ' (after {plain} plain steps, by {squarings} matrix squarings: a token keeps almost all its weight on itself, so the chain mixes slowly)',
    '（先做 {plain} 步普通迭代，再做 {squarings} 次矩阵平方：某个词元几乎把全部权重留给自己，马尔可夫链混合得很慢）',
  ],
  'lab.spec.convergence': [
    ': the last half of the run changed π by {change}, ‖πA − π‖₁ = {residual} (tolerance {tol} for both).',
    '：后半程中 π 的变化为 {change}，‖πA − π‖₁ = {residual}（两者的容差均为 {tol}）。',
  ],
  'lab.spec.sigmaAxis': ['i (σ descending); dashed: ε·σ₁ = {v}', 'i（σ 降序）；虚线：ε·σ₁ = {v}'],
  'lab.spec.sigmaTitle': ['Singular values σ of A ({n})', 'A 的奇异值 σ（{n} 个）'],
  'lab.spec.sigmaAria': ['singular values: {list}', '奇异值：{list}'],
  'lab.spec.effectiveRank': ['effective rank', '有效秩'],
  'lab.spec.effectiveRankHelp': ['exp(H(σ/Σσ)) ({roy}): 1 = rank one, n = identity', 'exp(H(σ/Σσ))（{roy}）：1 表示秩为一，n 表示单位矩阵'],
  'lab.spec.thresholdRank': ['threshold rank', '阈值秩'],
  'lab.spec.entropy': ['spectral entropy', '谱熵'],
  'lab.spec.entropyHelp': ['H(σ/Σσ), natural log', 'H(σ/Σσ)，自然对数'],
  'lab.spec.jsdCaption': ['Jensen-Shannon divergence (nats, 0 … ln 2)', '詹森-香农散度（奈特，0 … ln 2）'],
  'lab.spec.cosineCaption': ['cosine similarity (0 … 1)', '余弦相似度（0 … 1）'],
  'lab.spec.cellTitle': ['{a} vs {b}: mean over {n} rows', '{a} 对比 {b}：对 {n} 行取平均'],
  'lab.spec.cellEmpty': ['; {n} empty skipped', '；跳过 {n} 个空行'],
  'lab.spec.cellSinkOnly': ['; {n} with all mass on key 0 skipped', '；跳过 {n} 个全部质量都在键 0 上的行'],
  'lab.spec.dropNote': [
    'Drop-sink: each row without key 0, renormalised. Rows whose whole mass is on key 0 have no content distribution and are skipped: {n} of {m} in {name}',
    '去掉注意力汇：每一行去掉键 0 后重新归一化。全部质量都在键 0 上的行没有内容分布，因此跳过：{name} 的 {m} 行中有 {n} 行',
  ],
  'lab.spec.dropNotePairs': [', at most {n} for a pair of heads', '，任意一对头最多跳过 {n} 行'],
  'lab.spec.dropNoteHover': [' (hover a cell for its count).', '（把鼠标移到单元格上可看到具体行数）。'],
  'lab.spec.redundancyOne': [
    'Head redundancy (one head in this state: it is compared with itself only)',
    '注意力头冗余度（当前状态只有一个头：只能与自身比较）',
  ],
  'lab.spec.redundancy': [
    'Head redundancy: every pair of the {n} heads (mean over rows)',
    '注意力头冗余度：{n} 个头两两比较（对行取平均）',
  ],
  'lab.spec.redundancyNote': [
    "Cosine similarity and Jensen-Shannon divergence of the two heads' rows, averaged over the rows both can compare. " +
      'Keep-sink uses the rows as they are; drop-sink compares only where the attention goes besides the first token, ' +
      'so two heads that both park most of their mass on token 0 may agree under keep and disagree under drop.',
    '两个头对应行之间的余弦相似度与詹森-香农散度，在两者都能比较的行上取平均。保留注意力汇时直接比较原始的行；' +
      '去掉注意力汇时只比较第一个词元之外的注意力去向，因此两个都把大部分质量停放在词元 0 上的头，可能在保留时一致、去掉时却不一致。',
  ],
  'lab.spec.emptyNote': [
    (v) =>
      `${v.n} empty row${v.n === 1 ? '' : 's'} (no visible key) of ${v.name} ${v.n === 1 ? 'is' : 'are'} undefined and skipped in every comparison.`,
    '{name} 有 {n} 个空行（没有可见键），它们没有定义，在所有比较中都被跳过。',
  ],
  'lab.spec.keep': ['keep sink (full rows)', '保留注意力汇（完整的行）'],
  'lab.spec.drop': ['drop sink (without key 0, renormalised)', '去掉注意力汇（去掉键 0 后重新归一化）'],
  'lab.spec.shapeCross': ['{nQ} queries × {nK} keys', '{nQ} 个查询 × {nK} 个键'],
  'lab.spec.intro': [
    'The weights A of {name} ({shape}) as a matrix: rows sum to 1, so A is a Markov chain on the tokens ' +
      'and its singular values say how many independent directions the mixing keeps. ',
    '把 {name} 的权重 A（{shape}）看作一个矩阵：每行之和为 1，所以 A 是词元上的一条马尔可夫链，它的奇异值说明这种混合保留了多少个独立方向。',
  ],
  'lab.spec.introEmpty': [
    (v) => `${v.n} empty row${v.n === 1 ? '' : 's'} (no visible key) count${v.n === 1 ? 's' : ''} as zero rows. `,
    '{n} 个空行（没有可见键）按全零行计算。',
  ],
  'lab.spec.introEnd': [
    'Formulas and fields: the project\'s lab documentation, section "Spectral".',
    '公式与字段说明见项目的分析实验室文档（谱分析一节）。',
  ],

  // Linear attention
  'lab.linear.featureMap': ['feature map φ', '特征映射 φ'],
  'lab.linear.featureMapAria': ['feature map', '特征映射'],
  'lab.linear.reluFeatures': ['{relu} random features', '{relu} 随机特征'],
  'lab.linear.features': ['random features m', '随机特征数 m'],
  'lab.linear.featuresOff': ['{elu1} uses m = d_k', '{elu1} 固定使用 m = dₖ'],
  'lab.linear.seed': ['seed', '随机种子'],
  'lab.linear.seedOff': ['{elu1} has no randomness', '{elu1} 没有随机性'],
  'lab.linear.reluNote': [
    '{phiRelu} with W a Gaussian matrix of m × d_k = {m} × {dK} drawn from the seed ({performer}-style); m 1 … 1024.',
    '{phiRelu}，其中 W 是由随机种子生成的 m × dₖ = {m} × {dK} 高斯矩阵（{performer} 的做法）；m 取 1 … 1024。',
  ],
  'lab.linear.eluNote': [
    '{phiElu} elementwise, m = d_k = {m} ({katharopoulos} et al. 2020).',
    '{phiElu} 逐元素计算，m = dₖ = {m}（{katharopoulos} 等 2020）。',
  ],
  'lab.linear.undefinedDegenerate': [
    'undefined (φ(q)·Σφ(k) = 0: no feature of this query meets a visible key)',
    '未定义（φ(q)·Σφ(k) = 0：这个查询的特征与任何可见键都不重叠）',
  ],
  'lab.linear.weightsCaption': ['Weights of this row: softmax a vs linear {alin}', '这一行的权重：softmax 的 a 对比线性注意力的 {alin}'],
  'lab.linear.linear': ['linear', '线性'],
  'lab.linear.notVisible': ['not visible', '不可见'],
  'lab.linear.noOutput': ['V has no columns (d_v = 0): there is no output to compare.', 'V 没有列（dᵥ = 0）：没有可比较的输出。'],
  'lab.linear.outputsCaption': ['Outputs of this row: O = a V and {olinV}', '这一行的输出：O = a V 与 {olinV}'],
  'lab.linear.dim': ['dim', '维度'],
  'lab.linear.linearO': ['linear {olin}', '线性 {olin}'],
  'lab.linear.relativeEq': ['relative = ', '相对误差 = '],
  'lab.linear.relative': ['relative', '相对误差'],
  'lab.linear.rowsCaption': ['Every row (undefined rows are left out of the means)', '每一行（未定义的行不计入平均值）'],
  'lab.linear.mean': [(v) => `mean (${s(v.n, 'row', 'rows')})`, '平均（{n} 行）'],
  'lab.linear.unavailable': [
    'Linear attention is not available for this head: {reason}. ' +
      'Switch the mode to Q, K, V (or pick a lesson preset with Q, K and V) to compare it with softmax.',
    '这个注意力头无法使用线性注意力：{reason}。请把输入方式切换为 Q, K, V（或选择一个带 Q、K、V 的课程预设），再与 softmax 比较。',
  ],
  'lab.linear.pathPrefix': [
    'every query sees a prefix of the keys, so the core keeps running sums Σφ(k)vᵀ and Σφ(k): O(n·m·d_v), linear in the length',
    '每个查询看到的都是键的一个前缀，因此计算核心维护累加和 Σφ(k)vᵀ 与 Σφ(k)：复杂度 O(n·m·dᵥ)，与长度成线性关系',
  ],
  'lab.linear.pathRows': [
    'the mask is not a prefix per query (window, stride, sinks, padding in the middle or an edited mask): computed per row over its visible keys, O(Σ|Ω_t|·(m + d_v)), quadratic like softmax',
    '掩码对每个查询并不是前缀（滑动窗口、步长、注意力汇、中间的填充或手动编辑的掩码）：只能逐行在其可见键上计算，复杂度 O(Σ|Ω_t|·(m + dᵥ))，和 softmax 一样是二次的',
  ],
  'lab.linear.intro': [
    'Linear attention replaces {expForm} by φ(q)·φ(k), so {olinForm} ' +
      "over the keys the mask lets query t see; its implied weights {alinForm} sum to 1 like softmax's. " +
      'φ is applied to c·q and c·k with {cForm} = {c}. Here {path}. Formulas and fields: the project\'s lab documentation, section "Linear attention".',
    '线性注意力把 {expForm} 换成 φ(q)·φ(k)，于是在掩码允许查询 t 看到的键上，{olinForm}；' +
      '它隐含的权重 {alinForm} 与 softmax 的权重一样，每行之和为 1。φ 作用在 c·q 和 c·k 上，{cForm} = {c}。' +
      '这里{path}。公式与字段说明见项目的分析实验室文档（线性注意力一节）。',
  ],
  'lab.linear.footer': [
    (v) => `${v.name}: ${s(v.nQ, 'query', 'queries')}, ${s(v.nK, 'key', 'keys')}, d_k = ${v.dK}, d_v = ${v.dV}, m = ${v.m}.`,
    '{name}：{nQ} 个查询，{nK} 个键，dₖ = {dK}，dᵥ = {dV}，m = {m}。',
  ],

  // Angle sweep (the lesson's parameter experiment, seed 003)
  'lab.sweep.plotAria': [
    'Weights of the {n} visible keys versus θ from 0 to π/2 at τ = {tau}',
    'τ = {tau} 时 {n} 个可见键的权重随 θ（0 到 π/2）的变化',
  ],
  'lab.sweep.stateTau': [" (the state's τ)", '（当前状态的 τ）'],
  'lab.sweep.xAxis': ['θ (degrees, radians)', 'θ（角度，弧度）'],
  'lab.sweep.yAxis': ['weight a_j', '权重 aⱼ'],
  'lab.sweep.marker': ["┆ row {row}'s q at θ = {theta}°", '┆ 第 {row} 行的 q 位于 θ = {theta}°'],
  'lab.sweep.pointTitle': ['{key}: {w} at θ = {theta}°', '{key}：θ = {theta}° 时为 {w}'],
  'lab.sweep.legendAria': ['curves', '曲线'],
  'lab.sweep.moreKeys': ['+ {n} more keys', '另有 {n} 个键'],
  'lab.sweep.ownQ': ["row {row}'s own q = ({q}): θ = {theta}°, |q| = {norm}", '第 {row} 行自己的 q = ({q})：θ = {theta}°，|q| = {norm}'],
  'lab.sweep.tableCaption': ['Weights {sweepForm} over the visible keys', '在可见键上的权重 {sweepForm}'],
  'lab.sweep.tausAria': ['temperatures τ, comma-separated (1 to 4)', '温度 τ，用逗号分隔（1 到 4 个）'],
  'lab.sweep.tausError': ['Give 1 to 4 temperatures > 0, e.g. 0.5, 1, 2', '请给出 1 到 4 个大于 0 的温度，例如 0.5, 1, 2'],
  'lab.sweep.stepsAria': ['number of angles from 0 to π/2', '0 到 π/2 之间的角度个数'],
  'lab.sweep.taus': ['temperatures τ ', '温度 τ '],
  'lab.sweep.steps': ['angles from 0 to π/2 ', '0 到 π/2 的角度数 '],
  'lab.sweep.stepsWhat': ['the number of angles', '角度数'],
  'lab.sweep.intro': [
    "The lesson's parameter experiment: a unit query q(θ) = (cos θ, sin θ) turns from θ = 0 to π/2 against this head's keys. " +
      "Each plot shows every visible key's weight {sweepForm} at one temperature: the smaller τ, the more the weights concentrate " +
      "on the key that q(θ) points at. The keys, mask and scale are the state's; τ here replaces the state's τ.",
    '课程中的参数实验：单位查询 q(θ) = (cos θ, sin θ) 从 θ = 0 转到 π/2，与这个头的各个键做匹配。每张图对应一个温度，画出每个可见键的权重 ' +
      '{sweepForm}：τ 越小，权重越集中在 q(θ) 所指向的那个键上。键、掩码和缩放因子都取自当前状态；这里的 τ 代替状态中的 τ。',
  ],
  'lab.sweep.unsupported': [
    'Not available for this head: {reason}. Choose a preset with Q and K (e.g. "Lesson · worked example 1"), or mode qkv.',
    '这个注意力头无法使用此分析：{reason}。请选择一个带 Q 和 K 的预设（例如课程中的第一个算例），或把输入方式切换为 Q, K, V。',
  ],
  'lab.sweep.plane': [
    'The keys have d_k = {dK}: q(θ) = cos θ e₁ + sin θ e₂ lies in the plane of the first two axes ' +
      "(its other components are 0), so only each key's first two components matter; the row's own query is not marked.",
    '键的维数 dₖ = {dK}：q(θ) = cos θ e₁ + sin θ e₂ 位于前两个坐标轴张成的平面内（其余分量为 0），因此只有每个键的前两个分量起作用；这一行自己的查询不做标记。',
  ],
  'lab.sweep.qZero': [
    "Row {row}'s query is (0, 0): it has no angle, so it is not marked.",
    '第 {row} 行的查询是 (0, 0)：没有角度，因此不做标记。',
  ],
  'lab.sweep.qOutside': [
    "Row {row}'s query points at θ = {theta}°, outside 0 … 90°: not marked on the plots (its weights are in the table).",
    '第 {row} 行的查询指向 θ = {theta}°，超出 0 … 90°：图上不做标记（它的权重见下表）。',
  ],
  'lab.sweep.qLength': [
    "The marker is at row {row}'s angle θ = {theta}°. Its query has length |q| = {norm}, not 1: " +
      "its scores are |q| times the unit query's, so its own weights at τ are the curves' at τ/|q| (last rows of the table).",
    '标记位于第 {row} 行的角度 θ = {theta}°。它的查询长度 |q| = {norm}，不是 1：它的分数是单位查询的 |q| 倍，' +
      '所以它在 τ 下的权重等于曲线在 τ/|q| 处的值（见表的最后几行）。',
  ],
  'lab.sweep.qUnit': [
    "The marker is row {row}'s own query, a unit vector at θ = {theta}°: its weights lie on the curves.",
    '标记是第 {row} 行自己的查询，一个位于 θ = {theta}° 的单位向量：它的权重正好落在曲线上。',
  ],
  'lab.sweep.masked': [
    'Masked for row {row} (weight 0 at every θ, not drawn): {keys}.',
    '第 {row} 行中被掩码的键（在所有 θ 下权重都为 0，不画出）：{keys}。',
  ],
  'lab.sweep.title': [
    (v) => `Query row ${v.row}: ${s(v.n, 'visible key', 'visible keys')}, d_k = ${v.dK}, scale = ${v.scale}`,
    '查询行 {row}：{n} 个可见键，dₖ = {dK}，缩放因子 = {scale}',
  ],
  'lab.sweep.empty': [
    'Row {row} is empty: the mask leaves it no visible key, so its weights are undefined at every θ.',
    '第 {row} 行是空行：掩码没有给它留下任何可见键，因此在所有 θ 下权重都没有定义。',
  ],
  'lab.sweep.single': [
    'One visible key: its weight is 1 at every θ and τ (a point mass).',
    '只有一个可见键：在所有 θ 和 τ 下它的权重都是 1（集中在一点）。',
  ],

  // Formulas box (web/views/formulas.js)
  'lab.formulas.undefined': ['undefined', '未定义'],
  'lab.formulas.terms': ['({n} terms)', '（共 {n} 项）'],
  'lab.formulas.moreKeys': ['({n} more keys)', '（另有 {n} 个键）'],
  'lab.formulas.scores': ['Scores', '分数'],
  'lab.formulas.softmax': ['Softmax over the visible keys', '在可见键上做 softmax'],
  'lab.formulas.entropy': ['Entropy', '熵'],
  'lab.formulas.output': ['Output', '输出'],
  'lab.formulas.row': ['Query row {t} “{query}”, τ = {tau}', '查询行 {t}“{query}”，τ = {tau}'],
  'lab.formulas.scale': [', c = scale = {scale}', '，c = 缩放因子 = {scale}'],
  'lab.formulas.large': [
    'Large head: the formulas are shown without numbers (the weights of a large head are computed in a worker).',
    '大型注意力头：只显示公式，不代入数值（大型头的权重在后台线程中计算）。',
  ],
  'lab.formulas.emptyRow': [
    'Row {t} has no visible key (the mask leaves Ω_{t} empty): its scores, weights, entropy and output are undefined.',
    '第 {t} 行没有可见键（掩码使 Ω_{t} 为空）：它的分数、权重、熵和输出都没有定义。',
  ],
  'lab.formulas.masked': [
    'Masked keys (not in Ω_{t}) are left out of every sum: {keys}.',
    '被掩码的键（不在 Ω_{t} 中）不参与任何求和：{keys}。',
  ],
  'lab.formulas.keys': ['Keys: ', '键：'],
  'lab.formulas.noValues': ['This head has no values V: there is no output o_t.', '这个注意力头没有值 V：因此没有输出 oₜ。'],

  // Exports a person reads (SVG titles, the standalone HTML page)
  'lab.export.cellTitle': ['query {i}{q}, key {j}{k}: {value}', '查询 {i}{q}，键 {j}{k}：{value}'],
  'lab.export.notVisible': ['not visible', '不可见'],
  'lab.export.undefined': ['undefined', '未定义'],
  'lab.export.footer': [
    'Exported from Attention Playground. Entropy in nats; rows are queries, columns are keys.',
    '导出自注意力实验场。熵的单位为奈特；行对应查询，列对应键。',
  ],
  'lab.export.rowsCaption': ['Per-row metrics', '逐行指标'],
  'lab.export.importSvgTitle': [
    '{file}: {name} (layer {layer}, head {head}) — {label}',
    '{file}：{name}（第 {layer} 层，第 {head} 个头）— {label}',
  ],
  'lab.export.pooledNote': ['mean-pooled to {rows} × {cols} from {nQ} × {nK}', '由 {nQ} × {nK} 平均池化为 {rows} × {cols}'],
  'lab.export.weightsNote': ['weights, {nQ} queries (rows) × {nK} keys (columns)', '权重，{nQ} 个查询（行）× {nK} 个键（列）'],
  'lab.export.saturatesNote': [
    '; colours saturate at {hi} (the 99th percentile of the cells): larger weights share the top colour',
    '；颜色在 {hi}（所有单元格的第 99 百分位）处饱和：更大的权重都显示为最深的颜色',
  ],
  'lab.export.maxPooledNote': ['max-pooled overview {rows} × {cols} of {nQ} × {nK}', '由 {nQ} × {nK} 最大池化得到的 {rows} × {cols} 概览'],
  'lab.export.weightsTitle': ['Weights A = softmax(S / τ), τ = {tau}: {name}', '权重 A = softmax(S / τ)，τ = {tau}：{name}'],
  'lab.export.weightsGridNote': [
    '{nQ} queries (rows) × {nK} keys (columns); grey = masked',
    '{nQ} 个查询（行）× {nK} 个键（列）；灰色 = 已掩码',
  ],
  'lab.export.pageTitle': ['Attention Playground: {name}', '注意力实验场：{name}'],
  'lab.export.pageSubtitle': [
    'Mode {mode}, τ = {tau}, causal mask {causal}{window}; selected query row {row}.',
    '输入方式：{mode}，τ = {tau}，因果掩码：{causal}{window}；选中的查询行：{row}。',
  ],
  'lab.export.on': ['on', '开'],
  'lab.export.off': ['off', '关'],
  'lab.export.window': [', window {w}', '，滑动窗口 {w}'],
  'lab.export.rowsCaptionNats': ['Per-row metrics (entropy in nats)', '逐行指标（熵的单位为奈特）'],
  'lab.export.importHtmlTitle': ['{file}: layer {layer}, head {head}', '{file}：第 {layer} 层，第 {head} 个头'],
  'lab.export.importHtmlSubtitle': [
    '{label} (score {score}); mean H {h} nats; mean sink mass {sink}',
    '{label}（分数 {score}）；平均熵 H {h} 奈特；平均注意力汇质量 {sink}',
  ],

  // Per-row tables at 512 and 2,048 rows (web/lab/rows.js): a profile of all rows, a window of rows
  'lab.rows.binStats': ['mean {mean}, min {min}, max {max}', '均值 {mean}，最小值 {min}，最大值 {max}'],
  'lab.rows.oneRow': ['row {row}', '第 {row} 行'],
  'lab.rows.rowRange': ['rows {lo}–{hi}', '第 {lo}–{hi} 行'],
  'lab.rows.axis': ['query row', '查询行'],
  'lab.rows.binned': [
    '(bins of {k} rows: the line is each bin’s mean, the band its min to max; hover a bin for its numbers)',
    '（每 {k} 行为一组：线为每组的均值，色带为其最小值到最大值；悬停在一组上可看数值）',
  ],
  'lab.rows.perRow': ['(one point per row; hover for its numbers)', '（每行一个点；悬停可看数值）'],
  'lab.rows.first': ['First row', '起始行'],
  'lab.rows.prev': ['Previous rows', '上一页'],
  'lab.rows.next': ['Next rows', '下一页'],
  'lab.rows.toSelected': ['Rows around the selected row ({row})', '选中行（{row}）所在的一页'],
  'lab.rows.window': ['rows {lo}–{hi} of {n}', '共 {n} 行，显示第 {lo}–{hi} 行'],
  'lab.rows.sinkCaption': ['Sink mass s and entropy H (nats) of every query row', '每个查询行的注意力汇质量 s 与熵 H（奈特）'],
  'lab.rows.normCaption': ['Entropy H (nats) of each normaliser for every query row', '每个查询行在各归一化函数下的熵 H（奈特）'],
  'lab.rows.routingCaption': ['Normalised entropy and ignored mass of every query row', '每个查询行的归一化熵与被忽略的质量'],
  'lab.rows.keysShown': [
    '{shown} of {n} keys shown: those of largest {what}, in key order (the other numbers on this view are over all keys).',
    '共 {n} 个键，显示 {what} 最大的 {shown} 个（按键的顺序）；本视图的其他数值仍基于全部键。',
  ],
  'lab.rows.byWeight': ['weight under any of the three', '三者中任一权重'],
  'lab.rows.linearCaption': ['Relative output error and largest weight error of every query row', '每个查询行的相对输出误差与最大权重误差'],
};

const split = (i) => Object.fromEntries(Object.entries(PAIRS).map(([k, v]) => [k, v[i]]));

export default {
  en: split(0),
  'zh-CN': split(1),
};
