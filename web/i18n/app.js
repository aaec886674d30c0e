// String table: app (keys "app.*"). English and Simplified Chinese, the same keys in both.
export default {
  en: {
  },
  'zh-CN': {
  },
};
