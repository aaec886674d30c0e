// Strings of the figure exports, the heatmaps' axes and the token views (web/import/tokens.js,
// web/export/files.js figures, web/import/detail.js hookup). Each entry: [English, Chinese]; Chinese
// uses the seed article's terms (查询 query, 键 key, 注意力权重 attention weight, 头 head, 层 layer).
const PAIRS = {
  'views.axis.query': ['query', '查询'],
  'views.axis.key': ['key', '键'],
  'views.axis.queryIndex': ['query index', '查询序号'],
  'views.axis.keyIndex': ['key index', '键序号'],
  'views.scale.weight': ['attention weight', '注意力权重'],
  'views.scale.value': ['value', '数值'],
  'views.notVisible': ['not visible', '不可见'],
  'views.madeWith': ['Attention Playground', '注意力实验场'],
  'views.source': ['Source: {source}', '来源：{source}'],
  'views.tokens.layerName': ['{file}: layer {layer}', '{file}：第 {layer} 层'],
  'views.tokens.title': ['Tokens of {name}', '{name} 的词元'],
  'views.tokens.tabs': ['token views', '词元视图'],
  'views.tokens.text': ['Text', '文本'],
  'views.tokens.lines': ['Lines', '连线'],
  'views.tokens.which': ['Heads', '头'],
  'views.tokens.average': ['mean over the layer’s {n} heads', '本层 {n} 个头的平均'],
  'views.tokens.head': ['head {head}', '第 {head} 个头'],
  'views.tokens.direction': ['Shade by', '着色依据'],
  'views.tokens.asQuery': ['what the token attends to (its row)', '该词元关注的对象（它的行）'],
  'views.tokens.asKey': ['what attends to the token (its column)', '关注该词元的对象（它的列）'],
  'views.tokens.textHelp': [
    'Hover a token, or focus the text and move with the arrow keys: the other tokens are shaded by its attention weight. Enter or a click keeps the choice; {esc} lets it go.',
    '将指针移到一个词元上，或聚焦文本后用方向键移动：其他词元按它的注意力权重着色。按 Enter 或点击可固定选择；按 {esc} 取消。',
  ],
  'views.tokens.linesHelp': [
    'Queries on the left, keys on the right; each line is one head’s weight from a query to a key (thicker and darker = more). Hover a token or move with the arrow keys to show only its lines; tick heads to show or hide them.',
    '左列为查询，右列为键；每条线是一个头从查询到键的权重（越粗越深表示越大）。将指针移到词元上或用方向键移动，只显示它的连线；勾选头以显示或隐藏。',
  ],
  'views.tokens.textAria': ['tokens shaded by attention, {n} tokens', '按注意力着色的词元，共 {n} 个'],
  'views.tokens.linesAria': ['attention lines between {nQ} queries and {nK} keys', '{nQ} 个查询与 {nK} 个键之间的注意力连线'],
  'views.tokens.tokenName': ['token {i} {token}: weight {w}', '词元 {i} {token}：权重 {w}'],
  'views.tokens.focused': ['Query {i} {token}', '查询 {i} {token}'],
  'views.tokens.focusedKey': ['Key {i} {token}', '键 {i} {token}'],
  'views.tokens.none': ['No token chosen: hover one or use the arrow keys.', '尚未选择词元：将指针移到词元上或使用方向键。'],
  'views.tokens.svgNone': ['the tokens as text, no token chosen (no weights shaded)', '以文本显示的词元，未选择词元（没有按权重着色）'],
  'views.tokens.legend': ['white = 0, darkest = {hi}', '白色 = 0，最深 = {hi}'],
  'views.tokens.svg': ['SVG', 'SVG'],
  'views.tokens.loading': ['Reading the layer’s heads…', '正在读取本层的各个头……'],
  'views.tokens.tooLarge': [
    'Token views show heads of up to {max} tokens; this one has {n}. Use the heatmap above.',
    '词元视图最多显示 {max} 个词元的头；此头有 {n} 个。请使用上方的热力图。',
  ],
  'views.tokens.notComputed': ['No weights to show: {why}', '没有可显示的权重：{why}'],
  'views.tokens.minWeight': ['lines below {w} hidden', '低于 {w} 的连线已隐藏'],
  'views.link.headCopied': [
    'Link to {head} copied ({n} characters): it opens this head in the playground.',
    '已复制指向 {head} 的链接（{n} 个字符）：打开后在实验场中显示这个头。',
  ],
  'views.link.headTooLong': ['{head} is too large for a link ({detail}).', '{head} 太大，无法放入链接（{detail}）。'],
  'views.link.saveHead': ['Save this head as a state file', '把这个头保存为状态文件'],
  'views.link.noFile': [
    'Nothing to link yet: open a file, inspect a head, then Copy link shares that head.',
    '尚无可链接的内容：先打开文件并查看一个头，“复制链接”会分享这个头。',
  ],
  'views.link.noHead': [
    'A whole file ({file}, {size}) cannot travel in a link: a link holds the numbers it shows, and every head of the file is too many. Inspect a head and Copy link shares that head; to share the whole file, make a one-file page with it ({page}, the command-line tool), which opens without a server.',
    '整个文件（{file}，{size}）无法放入链接：链接里装的是它显示的数字，整个文件的所有头太多了。查看一个头后，“复制链接”会分享这个头；要分享整个文件，请用命令行工具生成包含该文件的单文件页面（{page}），它无需服务器即可打开。',
  ],
  'views.link.notState': [
    '{head} cannot be opened as a state (see the note above its heatmap), so it cannot travel in a link. Save state keeps the playground; a one-file page made with {page} (the command-line tool) opens the file itself.',
    '{head} 无法作为状态打开（见其热力图上方的说明），因此无法放入链接。“保存状态”可保存实验场；用命令行工具 {page} 生成的单文件页面可直接打开该文件。',
  ],
  'views.link.values': ['The head’s values could not be read: {detail}', '无法读取该头的数值：{detail}'],
  'views.lab.running': ['Computing this analysis of a large head off the page… {s} s', '正在后台计算这个大型头的分析……{s} 秒'],
  'views.lab.cancel': ['Cancel', '取消'],
  'views.lab.cancelled': ['Cancelled. Choose the analysis again to compute it.', '已取消。再次选择该分析即可重新计算。'],
  'views.lab.loadingModule': ['Loading the analysis lab…', '正在载入分析实验室…'],
  'views.lab.loadFailed': [
    'The analysis lab could not be loaded ({detail}). Check the connection and choose the analysis again.',
    '无法载入分析实验室（{detail}）。请检查网络后再次选择该分析。',
  ],
};

const split = (i) => Object.fromEntries(Object.entries(PAIRS).map(([k, v]) => [k, v[i]]));

export default {
  en: split(0),
  'zh-CN': split(1),
};
