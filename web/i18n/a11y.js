// String table: a11y (keys "a11y.*"). English and Simplified Chinese, the same keys in both.
export default {
  en: {
  },
  'zh-CN': {
  },
};
