// String table: import (keys "import.*"). English and Simplified Chinese, the same keys in both.
export default {
  en: {
  },
  'zh-CN': {
  },
};
