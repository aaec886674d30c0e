// String table: app (keys "app.*"). English and Simplified Chinese, the same keys in both.
export default {
  en: {
    'app.optionRefused': (v) => `The link's page options ${v.list} are not understood and were left at their defaults.`,
  },
  'zh-CN': {
    'app.optionRefused': (v) => `链接中的页面选项 ${v.list} 无法识别，已使用默认值。`,
  },
};
