// String table: import (keys "import.*"). English and Simplified Chinese, the same keys in both.
// The "Import & overview" view (web/import/) and the importer's own messages
// (web/import/messages.js: the English text is also the error's message, as the CLI words it; file names
// and the core's English detail are placeholders the page shows with translate="no").
// Written as [English, Chinese] pairs so the two cannot drift apart; split below.
const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

const PAIRS = {
  // Static text of the view
  'import.title': ['Import attention from a model', '导入模型的注意力'],
  'import.dropTitle': [
    'Drop an attention file here (with its tokens file, if you have one)',
    '把注意力文件拖放到这里（如有词元文件，可一并拖入）',
  ],
  // {npy}, {dtypes}, {tools}, ...: file formats, product and command names (TECH in importer.js, NAMES in import/text.js)
  'import.dropNote': [
    '{npy} ({dtypes}; [n, n], [heads, n, n], [layers, heads, n, n], batch of 1), {npz}, or JSON ' +
      '(ours, {tools}). The file never leaves this computer: it is read and analysed in this page.',
    '支持 {npy}（{dtypes}；形状 [n, n]、[头数, n, n]、[层数, 头数, n, n]，批大小为 1）、{npz} 以及 JSON ' +
      '（本工具、{tools} 的格式）。文件不会离开这台计算机：读取和分析都在本页面中完成。',
  ],
  'import.chooseFile': ['Choose a file…', '选择文件…'],
  'import.tokens': ['Tokens…', '词元文件…'],
  'import.keyTokens': ['Key tokens…', '键的词元文件…'],
  'import.causal': ['the model is causal (decoder): flag weight above the diagonal', '模型是因果的（解码器）：标出对角线上方的权重'],
  'import.howTo': ['How to export attention from {hf} or {tl}', '如何从 {hf} 或 {tl} 导出注意力'],
  'import.axisNote': [
    "Axis −2 is the query (row), axis −1 the key. More formats and the command-line tool: the project's import guide.",
    '倒数第二个轴是查询（行），最后一个轴是键。更多格式及命令行工具见项目的导入说明。',
  ],
  'import.readAs': ['read values as', '数值解读为'],
  'import.reading.auto': ['auto (probabilities, else ask)', '自动（先按概率解读，不符合时再询问）'],
  'import.reading.weights': ['attention weights (probabilities)', '注意力权重（概率）'],
  'import.reading.logits': ['scores / logits (softmax applied)', '分数 / logits（先做 softmax）'],
  'import.cancel': ['Cancel', '取消'],
  'import.member': ['array in the {npz}', '{npz} 中的数组'],
  'import.memberGo': ['Read this array', '读取这个数组'],
  'import.memberUnreadable': ['unreadable', '无法读取'],
  'import.sortBy': ['sort by', '排序依据'],
  'import.sortAria': ['sort heads by', '注意力头的排序依据'],
  'import.sort.order': ['layer, head', '层、头的顺序'],
  'import.sort.confidence': ['pattern score', '模式分数'],
  'import.desc': ['descending', '降序'],
  'import.pattern': ['pattern', '模式'],
  'import.filterAria': ['show heads with pattern', '只显示该模式的注意力头'],
  'import.filterAll': ['all', '全部'],
  'import.min': ['min', '最小值'],
  'import.max': ['max', '最大值'],
  'import.minAria': ['minimum of the sort metric', '排序指标的最小值'],
  'import.maxAria': ['maximum of the sort metric', '排序指标的最大值'],
  'import.exportHeadsCsv': ['Metrics CSV', '指标 CSV'],
  'import.exportHeadsJson': ['Metrics JSON', '指标 JSON'],
  'import.asLogits': ['Read as logits (apply softmax)', '按 logits 解读（先做 softmax）'],
  'import.gridAria': ['heads', '注意力头'],
  'import.detailAria': ['inspected head', '正在查看的注意力头'],
  'import.layerTable': ['Per-layer summary', '逐层汇总'],
  'import.headTable': ['Per-head table', '逐头明细'],

  // Progress and the file line
  'import.progress.running': ['Analysing head {n} of {total}…', '正在分析第 {n} 个头（共 {total} 个）…'],
  'import.progress.done': [(v) => `Analysed ${plural(v.total, 'head', 'heads')}.`, '已分析 {total} 个头。'],
  'import.progress.cancelled': ['Cancelled after {done} of {total} heads.', '已取消：共 {total} 个头，分析了 {done} 个。'],
  'import.progress.notProbabilities': [' The values are not probabilities: see the note below.', ' 这些数值不是概率：见下方说明。'],
  'import.readingFile': ['Reading {file} ({size})…', '正在读取 {file}（{size}）…'],
  'import.needsMember': [
    '{file} holds {n} arrays: pick the one with the attention weights.',
    '{file} 中有 {n} 个数组：请选出存放注意力权重的那一个。',
  ],
  'import.source': [
    '{name}: {kind}, shape {shape} → {layers} × {heads}{cross}; {tokens}.',
    '{name}：{kind}，形状 {shape} → {layers} × {heads}{cross}；{tokens}。',
  ],
  'import.source.npy': ['{format}, {dtype}', '{format}，{dtype}'],
  'import.source.npyMember': ['{format} array "{member}", {dtype}', '{format} 数组“{member}”，{dtype}'],
  'import.source.json': ['{format} JSON', '{format} JSON'],
  'import.source.cross': [' (cross-attention: {nQ} queries × {nK} keys)', '（交叉注意力：{nQ} 个查询 × {nK} 个键）'],
  'import.source.layers': [(v) => plural(v.n, 'layer', 'layers'), '{n} 层'],
  'import.source.heads': [(v) => plural(v.n, 'head', 'heads'), '{n} 个头'],
  'import.source.tokensFrom': ['{n} tokens from {file}', '{n} 个词元，取自 {file}'],
  'import.source.tokensInFile': ['{n} tokens from the file', '{n} 个词元，取自文件本身'],
  'import.source.crossTokensFrom': ['{q} query and {k} key tokens from {file}', '{q} 个查询词元和 {k} 个键词元，取自 {file}'],
  'import.source.crossTokensInFile': ['{q} query and {k} key tokens from the file', '{q} 个查询词元和 {k} 个键词元，取自文件本身'],
  'import.source.noTokens': ['no tokens (positions are shown; add a token file)', '没有词元（显示位置编号；可添加词元文件）'],
  'import.tokensPending': [
    '{file} will be read as the tokens of the next attention file you open.',
    '{file} 将作为下一个打开的注意力文件的词元读取。',
  ],

  // Errors the page words around a detail (the detail: a translated importer message, or the
  // core's English text with translate="no")
  'import.err.read': ['Could not read {file}: {detail}', '无法读取 {file}：{detail}'],
  'import.err.state': ['{file} is a playground state, but it is not valid: {detail}', '{file} 是实验场的状态文件，但内容无效：{detail}'],
  'import.err.tokens': ['Tokens from {file} not used: {detail}', '未使用 {file} 中的词元：{detail}'],
  'import.err.analysis': ['The analysis stopped: {detail}', '分析已中止：{detail}'],
  'import.err.values': ['Could not read layer {layer} head {head}: {detail}', '无法读取第 {layer} 层第 {head} 个头：{detail}'],
  'import.err.open': ['Could not open layer {layer} head {head}: {detail}', '无法打开第 {layer} 层第 {head} 个头：{detail}'],
  'import.err.worker': ['the import worker failed: {detail}', '导入用的后台线程出错：{detail}'],

  // The importer's own messages (web/import/messages.js)
  'import.err.empty': ['{name} is empty', '{name} 是空文件'],
  'import.err.tooLarge': [
    '{name} is {size}; the page reads at most {limit} of this kind of file. ' +
      'Use the command-line tool ({cli}) for bigger files, or export fewer layers.',
    '{name} 大小为 {size}；页面最多读取 {limit} 的此类文件。更大的文件请用命令行工具（{cli}），或少导出几层。',
  ],
  'import.err.tokensTooLarge': [
    'the token file is {size}; the page reads at most {limit} of this kind of file. ' +
      'Use the command-line tool ({cli}) for bigger files, or export fewer layers.',
    '词元文件大小为 {size}；页面最多读取 {limit} 的此类文件。更大的文件请用命令行工具（{cli}），或少导出几层。',
  ],
  'import.err.npyHeaderTruncated': [
    'the {npy} header needs {length} bytes but the file has {size}: it is truncated',
    '{npy} 文件头需要 {length} 字节，但文件只有 {size} 字节：文件不完整',
  ],
  'import.err.npyTruncated': [
    'the {npy} file is truncated: its header promises {bytes} bytes of {dtype} data for shape [{shape}], but only {follow} follow',
    '{npy} 文件不完整：文件头声明形状为 [{shape}] 的 {dtype} 数据共 {bytes} 字节，但后面只有 {follow} 字节',
  ],
  'import.err.notNpy': [
    '{name} is not a {ext} file: it does not start with the magic bytes {magic}',
    '{name} 不是 {ext} 文件：开头不是魔数 {magic}',
  ],
  'import.err.notNpz': [
    '{name} is not a {ext} file: it does not start with the {zip} magic {magic}',
    '{name} 不是 {ext} 文件：开头不是 {zip} 魔数 {magic}',
  ],
  'import.err.notAttention': [
    '{name} is not an attention file: expected {npy}, {npz} or JSON (it starts with neither {npyMagic}, {zipMagic} nor { or [)',
    '{name} 不是注意力文件：应为 {npy}、{npz} 或 JSON（文件开头既不是 {npyMagic}、{zipMagic}，也不是 { 或 [）',
  ],
  'import.err.headTooLarge': [
    'one head of shape {nQ} × {nK} is {size} of {dtype}; the page analyses heads of at most {limit}',
    '形状为 {nQ} × {nK} 的单个头有 {size} 的 {dtype} 数据；页面最多分析 {limit} 的单个头',
  ],
  'import.err.npzUnreadable': [
    '{name} is not a readable {npz} ({zip}) archive: {detail}',
    '{name} 不是可读取的 {npz}（{zip}）压缩包：{detail}',
  ],
  'import.err.npzNoMember': ['{name} has no array named "{member}"', '{name} 中没有名为“{member}”的数组'],
  'import.err.npzEmpty': ['{name} is a {zip} archive without {npy} arrays in it', '{name} 是 {zip} 压缩包，但其中没有 {npy} 数组'],
  'import.err.tokenCountKeys': ['{n} tokens for a tensor with {m} keys', '给出了 {n} 个词元，但张量有 {m} 个键'],
  'import.err.tokenCountQueries': ['{n} tokens for a tensor with {m} queries', '给出了 {n} 个词元，但张量有 {m} 个查询'],
  'import.err.crossTokens': [
    'the tensor has {nQ} queries and {nK} keys (cross-attention): give the query tokens and the key tokens as two files',
    '张量有 {nQ} 个查询和 {nK} 个键（交叉注意力）：请把查询的词元和键的词元分成两个文件给出',
  ],

  // What the heads of a file say (importer.js summarise())
  'import.sum.invalid': [
    (v) => `${v.where}: ${v.n} ${v.nanInf} ${v.n === 1 ? 'value' : 'values'}, the first at query ${v.row}, key ${v.col}`,
    '{where}：有 {n} 个 {nanInf} 值，第一个位于查询 {row}、键 {col}',
  ],
  'import.sum.moreInvalid': ['… and {n} more heads with {nanInf}', '……另有 {n} 个头含 {nanInf}'],
  'import.sum.negative': ['{n} negative values (min {min})', '{n} 个负值（最小 {min}）'],
  'import.sum.negativeScores': ['{n} negative values', '{n} 个负值'],
  // The same wording as attn analyze's (cpp/cli/analyze.cpp, not_probabilities_message).
  'import.sum.negInf': ['{n} entries are -inf (masked keys of logits)', '{n} 个元素是 -inf（logits 中被掩码的键）'],
  'import.sum.fill': [
    '{n} entries are a mask fill (-1e4, -65504, -1e9 or ≤ -1e30: masked keys of logits)',
    '{n} 个元素是掩码填充值（-1e4、-65504、-1e9 或 ≤ -1e30：logits 中被掩码的键）',
  ],
  'import.sum.aboveOne': ['{n} values above 1 (max {max})', '{n} 个大于 1 的值（最大 {max}）'],
  'import.sum.allZero': [
    (v) => `every row is all zero (${plural(v.n, 'row', 'rows')}; an unfilled buffer?)`,
    '每一行都全为 0（共 {n} 行；是否是未填充的缓冲区？）',
  ],
  'import.sum.rowSum': ['a row sum off 1 by {err} (row {row})', '行和偏离 1 达 {err}（第 {row} 行）'],
  'import.sum.notProbabilities': [
    '{n} of {total} heads are not probabilities ({where}: {why}). ' +
      'They look like scores (logits): read them as logits to get softmax weights.',
    '{total} 个头中有 {n} 个不是概率（{where}：{why}）。它们看起来像分数（logits）：按 logits 解读即可得到 softmax 权重。',
  ],
  // Every such head all zero: no logits to read either (importer.js summarise, offerLogits).
  'import.sum.notProbabilitiesZero': [
    '{n} of {total} heads are not probabilities ({where}: {why}): there is nothing to analyse; check that the export filled the array.',
    '{total} 个头中有 {n} 个不是概率（{where}：{why}）：没有可分析的内容；请检查导出时是否填充了数组。',
  ],
  'import.sum.rowSumWarning': [
    (v) =>
      `${v.n} ${v.n === 1 ? 'head has' : 'heads have'} rows summing to 1 only within ${v.err} ` +
      `(worst ${v.where} query ${v.row}; ${v.f16} or rounded exports do this). Accepted: each row is renormalised.`,
    '{n} 个头的行和只在 {err} 的误差内等于 1（最差的是 {where} 的查询 {row}；{f16} 或四舍五入后导出的数据常见这种情况）。已接受：每一行都重新归一化。',
  ],
  'import.listSep': [', ', '；'],

  // Overview cards and tables
  'import.count': ['{n} of {total} heads', '显示 {n} / {total} 个头'],
  'import.countPartial': ['{n} of {total} heads ({analysed} analysed)', '显示 {n} / {total} 个头（已分析 {analysed} 个）'],
  'import.card.notProbabilities': ['not probabilities', '不是概率'],
  'import.card.notProbShort': ['not prob.', '非概率'],
  'import.card.sinkShort': ['sink', '汇'],
  'import.card.title': ['{name} (layer {layer}, head {head}): {label}', '{name}（第 {layer} 层，第 {head} 个头）：{label}'],
  'import.card.titleMetrics': [
    ', pattern score {score}, mean normalised entropy {hn}, mean sink mass {sink}, mean N_eff {neff}',
    '，模式分数 {score}，平均归一化熵 {hn}，平均注意力汇质量 {sink}，平均 N_eff {neff}',
  ],
  'import.card.metrics': ['Hₙ {hn} · sink {sink}', 'Hₙ {hn} · 汇 {sink}'],
  'import.nOfM': ['{n} of {m}', '{n} / {m}'],
  'import.patternCount': ['{n} {kind}', '{kind} {n} 个'],
  'import.col.layer': ['layer', '层'],
  'import.col.head': ['head', '头'],
  'import.col.headsAnalysed': ['heads analysed', '已分析的头'],
  'import.col.patterns': ['patterns', '模式'],
  'import.col.verdict': ['verdict', '判定'],
  'import.col.pattern': ['pattern', '模式'],
  'import.col.score': ['score', '分数'],
  'import.verdict.probabilities': ['probabilities', '概率'],
  'import.verdict.probabilities_warn': ['probabilities (renormalised)', '概率（已重新归一化）'],
  'import.verdict.not_probabilities': ['not probabilities', '不是概率'],
  'import.verdict.invalid': ['invalid ({nanInf})', '无效（{nanInf}）'],

  // The inspected head
  'import.detail.layerHead': ['Layer {layer}, head {head}', '第 {layer} 层，第 {head} 个头'],
  'import.detail.loading': ['Loading…', '加载中…'],
  'import.detail.title': ['{name} (layer {layer}, head {head}): {label}', '{name}（第 {layer} 层，第 {head} 个头）：{label}'],
  'import.detail.open': ['Open in playground', '在实验场中打开'],
  'import.why.invalid': [
    'this head holds {nanInf} (the first at query {row}, key {col})',
    '这个头含有 {nanInf}（第一个位于查询 {row}、键 {col}）',
  ],
  'import.why.tooLarge': ['the playground opens heads of up to {max} tokens', '实验场最多打开 {max} 个词元的注意力头'],
  'import.why.notProbabilities': [
    'its values are not probabilities: read the file as logits first',
    '它的数值不是概率：请先按 logits 解读该文件',
  ],
  'import.detail.notAnalysed': ['Not analysed: {why}.', '未分析：{why}。'],
  'import.detail.cannotOpen': ['Cannot open: {why}.', '无法打开：{why}。'],
  'import.detail.canvasAria': [
    'weights of {name}, {nQ} queries by {nK} keys. Arrow keys move a cursor, Enter locks it.',
    '{name} 的权重，{nQ} 个查询 × {nK} 个键。方向键移动光标，回车键锁定。',
  ],
  'import.detail.canvasAriaPooled': [
    'weights of {name}, {nQ} queries by {nK} keys, mean-pooled. Arrow keys move a cursor, Enter locks it.',
    '{name} 的权重，{nQ} 个查询 × {nK} 个键，已做平均池化。方向键移动光标，回车键锁定。',
  ],
  'import.detail.readoutHelp': [
    'Hover a cell (or focus the map and use the arrow keys): query, key and weight. Click or Enter locks it; click again or {esc} unlocks.',
    '把鼠标移到单元格上（或聚焦热力图后用方向键）可查看查询、键和权重。单击或按回车锁定；再次单击或按 {esc} 解锁。',
  ],
  'import.detail.notVisible': ['not visible', '不可见'],
  'import.detail.readout': ['query {i} “{qt}” → key {j} “{kt}”: weight {value}', '查询 {i}“{qt}”→ 键 {j}“{kt}”：权重 {value}'],
  'import.detail.readoutPooled': [
    'queries {q0}–{q1} → keys {k0}–{k1}: mean weight {value}',
    '查询 {q0}–{q1} → 键 {k0}–{k1}：平均权重 {value}',
  ],
  'import.detail.locked': ['locked: ', '已锁定：'],
  'import.detail.emptyRow': ['empty row', '空行'],
  'import.detail.pooledNote': [
    'Each pixel is the mean weight of a block of about {q} queries × {k} keys (rows renormalised).',
    '每个像素是约 {q} 个查询 × {k} 个键的块内平均权重（各行已重新归一化）。',
  ],
  'import.detail.pixelNote': [
    'One pixel per (query, key); rows renormalised over their visible keys. Grey: no visible key.',
    '每个（查询，键）对应一个像素；各行在其可见键上重新归一化。灰色：没有可见键。',
  ],
  'import.detail.legendGrey': ['grey: no visible key', '灰色：没有可见键'],
  'import.detail.saturates': [
    'Colours saturate at {hi} (the 99th percentile of the cells), as in the exports.',
    '颜色在 {hi}（所有单元格的第 99 百分位）处饱和，与导出文件一致。',
  ],
  'import.detail.summary': [
    'mean H {h} nats · mean Hₙ {hn} · mean N_eff {neff} · mean top-2 mass {topk} · mean sink mass {sink} · empty rows {empty}',
    '平均熵 H {h} 奈特 · 平均归一化熵 Hₙ {hn} · 平均 N_eff {neff} · 平均 top-2 质量 {topk} · 平均注意力汇质量 {sink} · 空行 {empty}',
  ],
  'import.detail.scores': ['Pattern scores: ', '各模式分数：'],
  'import.detail.rowsSummary': ['Per-row metrics ({n} queries)', '逐行指标（{n} 个查询）'],
  'import.rowCol.query': ['query', '查询'],
  'import.rowCol.token': ['token', '词元'],
  'import.export.rowsCsv': ['Rows CSV', '逐行 CSV'],
  'import.export.rowsJson': ['Rows JSON', '逐行 JSON'],
  'import.export.html': ['HTML page', 'HTML 页面'],

  // What a pattern means (the inspected head); {p} is the class's parameter
  'import.meaning.offset': [
    'offset d = {p}: most mass on key t − {p}, {p} positions before the query (on repeated text, the token after the previous occurrence: an induction stripe).',
    '偏移 d = {p}：大部分质量落在键 t − {p} 上，即查询之前 {p} 个位置（在重复文本上，这正是上一次出现之后的那个词元：归纳头的斜条纹）。',
  ],
  'import.meaning.previous': ['previous token: most mass on key t − 1.', '前一个词元：大部分质量落在键 t − 1 上。'],
  'import.meaning.self': ["self: most mass on the query's own position.", '自身：大部分质量落在查询自己的位置上。'],
  'import.meaning.next': ['next token: most mass on key t + 1.', '后一个词元：大部分质量落在键 t + 1 上。'],
  'import.meaning.sink': ['sink: most mass on the first key (BOS).', '注意力汇：大部分质量落在第一个键（序列起始词元）上。'],
  'import.meaning.strided': ['strided: mass on every {p}-th key back from the query.', '跨步：质量落在从查询往回每隔 {p} 个的键上。'],
  'import.meaning.position': ['fixed position: every query attends to key {p}.', '固定位置：每个查询都关注键 {p}。'],
  'import.meaning.global': ['global: broad, many keys share the mass.', '全局：分布宽，许多键分担质量。'],

  // --- Checks that run by themselves, layer numbers, field scores, two runs compared (docs/import.md:
  // web/import/{analysis,grid,tables,detail,compare}.js, importer.js summarise()) ---------------
  'import.sort.aboveDiagonalMass': ['above-diagonal mass', '对角线上方的质量'],
  'import.score.previousToken': ['TransformerLens previous-token score', 'TransformerLens 前一词元分数'],
  'import.score.duplicateToken': ['TransformerLens duplicate-token score', 'TransformerLens 重复词元分数'],
  'import.score.induction': ['TransformerLens induction score', 'TransformerLens 归纳头分数'],
  'import.filterFlagged': ['flagged: weight above the diagonal', '被标出的头：对角线上方有权重'],
  'import.rangeOn': ['range of', '范围依据'],
  'import.rangeOnAria': ['metric the min and max apply to', '最小值和最大值所作用的指标'],
  'import.layerNumbers': ['layer numbers', '层号'],
  'import.layerNumbersAria': [
    "the model's numbers of the file's layers, e.g. 0,2,4,5 (empty: the file's own, else 0, 1, …)",
    '文件中各层在模型里的层号，例如 0,2,4,5（留空：用文件自带的层号，否则为 0, 1, …）',
  ],
  // The detail is the core's message, which names the layer numbers itself.
  'import.err.layerNumbers': ['Could not use the typed {detail}', '无法使用输入的层号：{detail}'],
  'import.card.flagMass': ['↑ diag. {mass}', '↑ 对角线 {mass}'],
  'import.card.flagMassTitle': [
    'On average {mass} of each row’s weight lies above the diagonal ({n} rows from query {from}, up to {max}); flagged {rank} of {k}, largest mass first',
    '平均每行有 {mass} 的权重落在对角线上方（{n} 行，从查询 {from} 起，最大 {max}）；按质量从大到小，是被标出的 {k} 个头中的第 {rank} 个',
  ],
  'import.struct.item': [
    '{where} (mass {mass}, {rows} rows from query {from}, up to {max})',
    '{where}（质量 {mass}，{rows} 行，从查询 {from} 起，最大 {max}）',
  ],
  'import.struct.causal': [
    (v) =>
      `Causal structure detected: ${v.n === 1 ? 'the head is' : `all ${v.n} heads are`} zero above the diagonal, so query t sees keys 0 … t (|Ω_t| = t + 1); a weight of exactly 0 below the diagonal (${v.f16} underflow) is a visible key of weight 0, not a masked one.`,
    '检测到因果结构：全部 {n} 个头在对角线上方都为 0，因此查询 t 看得到键 0 … t（|Ω_t| = t + 1）；对角线下方恰好为 0 的权重（{f16} 下溢）是权重为 0 的可见键，而不是被掩码的键。',
  ],
  'import.struct.causalLogits': [
    (v) =>
      `Causal structure detected: ${v.n === 1 ? 'the head is' : `all ${v.n} heads are`} masked above the diagonal (-inf or a mask fill), so query t sees keys 0 … t.`,
    '检测到因果结构：全部 {n} 个头在对角线上方都被掩码（-inf 或掩码填充值），因此查询 t 看得到键 0 … t。',
  ],
  'import.struct.stated': [
    'You said the model is causal: every head zero above the diagonal is read with |Ω_t| = t + 1, and no head puts weight above it.',
    '你指定了模型是因果的：对角线上方为 0 的头都按 |Ω_t| = t + 1 读取，没有头在对角线上方有权重。',
  ],
  'import.struct.flaggedStated': [
    'You said the model is causal, but {k} heads put weight above the diagonal (largest above-diagonal mass first): {list}',
    '你指定了模型是因果的，但有 {k} 个头在对角线上方有权重（按对角线上方的质量从大到小）：{list}',
  ],
  'import.struct.mixed': [
    'Mostly causal: {c} of {n} heads are zero above the diagonal (detected from the file); the {k} others put weight above it and are flagged, largest above-diagonal mass first: {list}',
    '大部分是因果的：{n} 个头中有 {c} 个在对角线上方为 0（从文件中检测）；其余 {k} 个在对角线上方有权重，已标出，按对角线上方的质量从大到小：{list}',
  ],
  'import.struct.bidirectional': [
    'Bidirectional (an encoder or cross-attention): {k} of {n} heads put weight above the diagonal; nothing is flagged.',
    '双向的（编码器或交叉注意力）：{n} 个头中有 {k} 个在对角线上方有权重；不标出任何头。',
  ],
  'import.struct.maskFills': [
    'Read as logits: {inf} entries are -inf and {fills} are finite mask fills (-1e4, -65504, -1e9 or ≤ -1e30); both count as masked keys.',
    '按 logits 读取：{inf} 个元素是 -inf，{fills} 个是有限的掩码填充值（-1e4、-65504、-1e9 或 ≤ -1e30）；两者都算作被掩码的键。',
  ],
  'import.col.aboveDiag': ['above-diag. mass', '对角线上方质量'],
  'import.col.flagged': ['flagged', '标出'],
  'import.col.flaggedYes': ['#{rank}', '第 {rank}'],
  'import.score.previousTokenShort': ['TL prev.', 'TransformerLens 前一词元'],
  'import.score.duplicateTokenShort': ['TL dup.', 'TransformerLens 重复词元'],
  'import.score.inductionShort': ['TL induction', 'TransformerLens 归纳'],
  'import.detail.field': [
    '{tl} head-detector scores ({fn}, {measure}): previous token {prev}, duplicate token {dup}, induction {ind}. Ours, "previous" above: {ours} (rows t ≥ 2, key 0 left to the sink; the project\'s import guide compares the two).',
    '{tl} 头检测分数（{fn}，{measure}）：前一词元 {prev}，重复词元 {dup}，归纳 {ind}。我们的“前一词元”分数（见上）：{ours}（只算 t ≥ 2 的行，键 0 归注意力汇；两者的比较见项目的导入说明）。',
  ],
  'import.detail.fieldNone': ['— (needs the tokens)', '—（需要词元）'],
  'import.detail.fieldNotSquare': ['— (not square: {nQ} queries × {nK} keys)', '—（不是方阵：{nQ} 个查询 × {nK} 个键）'],
  'import.detail.notSquare': [
    'Not square ({nQ} queries × {nK} keys, e.g. cross-attention): there is no causal diagonal, so no mass above it is measured.',
    '不是方阵（{nQ} 个查询 × {nK} 个键，例如交叉注意力）：没有因果对角线，因此不计算对角线上方的质量。',
  ],
  'import.detail.causalVisibility': [
    'Causal by its values (zero above the diagonal): |Ω_t| = t + 1, zeros below the diagonal are visible keys.',
    '从数值看是因果的（对角线上方为 0）：|Ω_t| = t + 1，对角线下方的 0 是可见的键。',
  ],
  'import.detail.causalStructure': ['Causal by its values (masked above the diagonal).', '从数值看是因果的（对角线上方被掩码）。'],
  'import.detail.notCausal': [
    'Not causal: on average {mass} of each row lies above the diagonal (largest weight there {max}).',
    '不是因果的：平均每行有 {mass} 落在对角线上方（那里最大的权重是 {max}）。',
  ],
  'import.detail.flagged': [
    'Flagged ({rank} of {k}, largest mass first): on average {mass} of each row lies above the diagonal (largest weight there {max}).',
    '已标出（按质量从大到小，{k} 个中的第 {rank} 个）：平均每行有 {mass} 落在对角线上方（那里最大的权重是 {max}）。',
  ],
  'import.compare.choose': ['Compare with…', '与另一次运行比较…'],
  'import.compare.aria': ['comparison of two runs', '两次运行的比较'],
  'import.compare.title': ['{a} compared with {b} (B − A)', '{a} 与 {b} 的比较（B − A）'],
  'import.compare.running': ['Comparing head {n} of {total}…', '正在比较第 {n} / {total} 个头…'],
  'import.compare.summary': [
    (v) =>
      `${v.n} heads compared; ${v.changed} ${v.changed === 1 ? 'changes its' : 'change their'} label; largest mean Jensen-Shannon divergence ${v.max} nats (${v.where}).`,
    '比较了 {n} 个头；{changed} 个头的标签变了；平均詹森-香农散度最大为 {max} 奈特（{where}）。',
  ],
  'import.compare.metric': ['colour by', '颜色依据'],
  'import.compare.legendDown': ['lower in B', 'B 中更低'],
  'import.compare.legendUp': [
    'higher in B; the stronger the colour, the larger the change (full colour: {max}).',
    'B 中更高；颜色越深，变化越大（最深：{max}）。',
  ],
  'import.compare.legendJsd': [
    'the stronger the colour, the more the rows differ (full colour: {max} nats).',
    '颜色越深，两次运行的行差异越大（最深：{max} 奈特）。',
  ],
  'import.compare.legendChanged': ['outlined: the pattern label changed.', '带框：模式标签改变了。'],
  'import.compare.cellTitle': ['{name}: {value} ({a} → {b})', '{name}：{value}（{a} → {b}）'],
  'import.compare.col.layer': ['layer', '层'],
  'import.compare.col.head': ['head', '头'],
  'import.compare.col.labelA': ['label A', '标签 A'],
  'import.compare.col.labelB': ['label B', '标签 B'],
  'import.compare.col.changed': ['label changed', '标签改变'],
  'import.compare.col.delta': ['Δ mean {metric}', 'Δ 平均{metric}'],
  'import.compare.col.meanJsd': ['mean JSD (nats)', '平均詹森-香农散度（奈特）'],
  'import.compare.col.maxJsd': ['max JSD (nats)', '最大詹森-香农散度（奈特）'],
  'import.compare.yes': ['yes', '是'],
  'import.compare.exportCsv': ['Comparison CSV', '比较结果 CSV'],
  'import.compare.exportJson': ['Comparison JSON', '比较结果 JSON'],
  'import.compare.close': ['Close the comparison', '关闭比较'],
  'import.compare.notAttention': [
    '{name} is not an attention file of one array (a state, or an {npz} with several): open it alone first',
    '{name} 不是只含一个数组的注意力文件（是状态文件，或含多个数组的 {npz}）：请先单独打开它',
  ],
  'import.compare.shapeMismatch': [
    '{a} is {sa} and {b} is {sb} (layers, heads, queries, keys): a comparison needs two files of the same shape',
    '{a} 的形状是 {sa}，{b} 是 {sb}（层、头、查询、键）：比较需要两个形状相同的文件',
  ],
};

const split = (i) => Object.fromEntries(Object.entries(PAIRS).map(([k, v]) => [k, v[i]]));

export default {
  en: split(0),
  'zh-CN': split(1),
};
