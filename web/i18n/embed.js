// String table: embed (keys "embed.*"). English and Simplified Chinese, the same keys in both.
export default {
  en: {
  },
  'zh-CN': {
  },
};
