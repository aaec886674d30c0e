// String table: lesson (keys "lesson.*"). English and Simplified Chinese, the same keys in both.
export default {
  en: {
  },
  'zh-CN': {
  },
};
