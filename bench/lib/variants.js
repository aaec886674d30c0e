// The variants the runner times, as {variant, kernel, label, prepare()} objects (see runBench in
// harness.js). Environment-free: the caller passes the loaded WASM modules and TF.js.

import { softmaxEntropyJS, softmaxJS } from './reference.js';

/** The plain JS reference kernels (Float32Array in, Float32Array out). */
export function jsVariants() {
  const make = (kernel) => ({
    variant: 'js',
    kernel,
    label: `plain JS ${kernel}`,
    prepare(input, rows, n, tau) {
      const out = new Float32Array(rows * n);
      const ent = new Float32Array(rows);
      const run = kernel === 'softmax' ? () => softmaxJS(input, out, rows, n, tau) : () => softmaxEntropyJS(input, out, ent, rows, n, tau);
      return {
        run,
        read: () => ({ weights: out.slice(), entropy: kernel === 'softmax' ? null : ent.slice() }),
        dispose() {},
      };
    },
  });
  return [make('softmax_entropy'), make('softmax')];
}

/**
 * The bench entry points of one Embind module (web/wasm/attn.js or attn_simd.js). The input is
 * copied into the module's heap once per n; the kernels then read and write the heap only.
 * HEAPF32 is re-read after every allocation (memory growth detaches old views).
 */
export function wasmVariants(Module, variant) {
  const make = (kernel) => ({
    variant,
    kernel,
    label: `${variant} ${kernel}`,
    prepare(input, rows, n, tau) {
      const bytes = rows * n * 4;
      const inPtr = Module._malloc(bytes);
      const outPtr = Module._malloc(bytes);
      const entPtr = Module._malloc(rows * 4);
      if (!inPtr || !outPtr || !entPtr) throw new Error(`_malloc of ${3 * bytes} bytes failed`);
      Module.HEAPF32.set(input, inPtr >> 2);
      const run =
        kernel === 'softmax'
          ? () => Module.benchSoftmax(inPtr, outPtr, rows, n, tau)
          : () => Module.benchSoftmaxEntropy(inPtr, outPtr, entPtr, rows, n, tau);
      return {
        run,
        read: () => {
          const heap = Module.HEAPF32;
          return {
            weights: heap.slice(outPtr >> 2, (outPtr >> 2) + rows * n),
            entropy: kernel === 'softmax' ? null : heap.slice(entPtr >> 2, (entPtr >> 2) + rows),
          };
        },
        dispose() {
          Module._free(entPtr);
          Module._free(outPtr);
          Module._free(inPtr);
        },
      };
    },
  });
  return [make('softmax_entropy'), make('softmax')];
}

/**
 * TensorFlow.js (WASM backend, already set and ready). The input tensor is created once per n
 * (it lives in the backend's WASM heap); each call allocates its outputs, as TF.js always does, and
 * the previous call's outputs are disposed. Nothing is read back to JS while timing.
 *
 *   tfjs-wasm softmax:               p = tf.softmax(x)                  (tau 1: no temperature op)
 *   tfjs-wasm softmax_entropy:       z = x / tau; p = tf.softmax(z); H = -sum(p * log p, axis 1)
 *   tfjs-wasm-logsoftmax (context):  z = x / tau; l = tf.logSoftmax(z); p = exp(l);
 *                                    H = -sum(p * l, axis 1)
 * Both chains return the weights p and the entropies H, like the fused kernel.
 */
export function tfjsVariants(tf) {
  const make = (variant, kernel, label, fn) => ({
    variant,
    kernel,
    label,
    prepare(input, rows, n, tau) {
      const x = tf.tensor2d(input, [rows, n]);
      const tauT = tf.scalar(tau);
      let last = null;
      const release = () => {
        if (last) for (const t of last) t.dispose();
        last = null;
      };
      return {
        run() {
          release();
          last = tf.tidy(() => fn(x, tauT));
        },
        read: () => ({
          weights: last[0].dataSync().slice(),
          entropy: last.length > 1 ? last[1].dataSync().slice() : null,
        }),
        dispose() {
          release();
          x.dispose();
          tauT.dispose();
        },
      };
    },
  });
  return [
    make('tfjs-wasm', 'softmax_entropy', 'TF.js chain softmax -> -sum(p log p)', (x, tau) => {
      const p = tf.softmax(tf.div(x, tau));
      const h = tf.neg(tf.sum(tf.mul(p, tf.log(p)), 1));
      return [p, h];
    }),
    make('tfjs-wasm', 'softmax', 'TF.js softmax', (x) => [tf.softmax(x)]),
    make('tfjs-wasm-logsoftmax', 'softmax_entropy', 'TF.js chain logSoftmax -> -sum(exp(l) l)', (x, tau) => {
      const l = tf.logSoftmax(tf.div(x, tau));
      const p = tf.exp(l);
      const h = tf.neg(tf.sum(tf.mul(p, l), 1));
      return [p, h];
    }),
  ];
}

/** Every variant timed in one environment: plain JS, both WASM builds, TF.js (node and page). */
export function allVariants({ scalar, simd, tf }) {
  return [...jsVariants(), ...wasmVariants(scalar, 'wasm-scalar'), ...wasmVariants(simd, 'wasm-simd'), ...tfjsVariants(tf)];
}

/** Native results of build/native/attn_bench --json, renamed to this benchmark's variants. */
export function nativeResults(json) {
  return (json?.results ?? []).map((r) => ({
    ...r,
    variant: `native-${r.variant}`,
    label: `native ${r.variant} ${r.kernel}`,
    max_abs_err_weights: r.max_abs_err_weights ?? null,
    max_abs_err_entropy: r.max_abs_err_entropy ?? null,
    runs: r.runs ?? [],
  }));
}
