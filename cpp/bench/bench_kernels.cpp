// attn_bench: native kernel benchmark (not a test). For each n and each kernel set this build and
// CPU can run (scalar, sse4.1, avx2), times the fused row softmax + entropy and the softmax alone
// over an n x n float32 matrix (all keys visible, tau = 1) and reports million elements per second
// (median of the runs; runs of the variants interleaved, so that machine noise hits all alike).
//
//   attn_bench [--json FILE] [--sizes 256,1024,4096] [--runs 7] [--min-ms 100]
//              [--variants scalar,sse4.1,avx2] [--kernels softmax_entropy,softmax,row_metrics]
//
// row_metrics is the set's softmax_row (kernels.hpp) on the same rows, every key visible (no flags,
// visible = nullptr: what the pipeline passes for a row of finite scores with no key masked), with the
// row defaults (top-k 2, one sink key, delta 0.1): the weights plus every row metric (entropy,
// N_eff, top-k mass, sink mass, row sum, (1-delta) support). Its "x fused" column is its time over
// softmax_entropy's time for the same set and n (the row-metrics target: at most 1.5).
//
// JSON: {machine: {cpu, cores}, config: {...}, results: [{variant, n, kernel, melems_per_s, runs,
// max_abs_err_weights, max_abs_err_entropy}]}; the errors are against a double-precision softmax.
// bench/lib/node-env.js (npm run bench) runs it with --json.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "kernels_simd.hpp"

namespace {

using attn::kernels::RowBench;
using Clock = std::chrono::steady_clock;

struct Options {
    std::string json;
    std::vector<int> sizes{256, 1024, 4096};
    int runs = 7;
    double min_ms = 100.0;
    std::vector<std::string> variants;  // empty: all available
    std::vector<std::string> kernels{"softmax_entropy", "softmax", "row_metrics"};
};

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string t; std::getline(ss, t, ',');)
        if (!t.empty()) out.push_back(t);
    return out;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

struct Result {
    std::string variant, kernel;
    int n = 0;
    std::vector<double> runs;  // M elements / s
    double err_w = 0.0, err_h = 0.0;
};

[[noreturn]] void usage(const char* msg) {
    std::cerr << "attn_bench: " << msg
              << "\nusage: attn_bench [--json FILE] [--sizes 256,1024,4096] [--runs N>=5] "
                 "[--min-ms MS] [--variants scalar,sse4.1,avx2] [--kernels softmax_entropy,softmax,row_metrics]\n";
    std::exit(2);
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) usage(("missing value after " + a).c_str());
            return argv[++i];
        };
        if (a == "--json") {
            o.json = next();
        } else if (a == "--sizes") {
            o.sizes.clear();
            for (const std::string& t : split(next())) o.sizes.push_back(std::stoi(t));
        } else if (a == "--variants") {
            o.variants = split(next());
        } else if (a == "--kernels") {
            o.kernels = split(next());
            for (const std::string& k : o.kernels)
                if (k != "softmax_entropy" && k != "softmax" && k != "row_metrics")
                    usage(("unknown kernel " + k).c_str());
        } else if (a == "--runs") {
            o.runs = std::stoi(next());
            if (o.runs < 5) usage("--runs must be >= 5");
        } else if (a == "--min-ms") {
            o.min_ms = std::stod(next());
        } else if (a == "-h" || a == "--help") {
            usage("help");
        } else {
            usage(("unknown argument " + a).c_str());
        }
    }
    return o;
}

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0) {
            const auto p = line.find(':');
            if (p != std::string::npos) return line.substr(line.find_first_not_of(" \t", p + 1));
        }
    return "unknown";
}

std::string json_escape(const std::string& s) {
    std::string o;
    for (char c : s) {
        if (c == '"' || c == '\\') o += '\\';
        if (static_cast<unsigned char>(c) >= 0x20) o += c;
    }
    return o;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

/// Max |error| of the weights and the entropies against a double-precision softmax.
void check(const std::vector<float>& in, const std::vector<float>& out, const std::vector<float>& ent, int n,
           bool with_entropy, double& err_w, double& err_h) {
    err_w = err_h = 0.0;
    std::vector<double> e(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) {
        const float* s = in.data() + static_cast<std::size_t>(r) * n;
        const float* o = out.data() + static_cast<std::size_t>(r) * n;
        double mx = s[0];
        for (int j = 1; j < n; ++j) mx = std::max(mx, double(s[j]));
        double z = 0.0;
        for (int j = 0; j < n; ++j) z += (e[j] = std::exp(double(s[j]) - mx));
        double h = 0.0;
        for (int j = 0; j < n; ++j) {
            const double p = e[j] / z;
            if (p > 0) h -= p * std::log(p);
            err_w = std::max(err_w, std::fabs(p - o[j]));
        }
        if (with_entropy) err_h = std::max(err_h, std::fabs(h - ent[r]));
    }
}

}  // namespace

int main(int argc, char** argv) {
    const Options opt = parse(argc, argv);
    const std::vector<const RowBench*> sets = attn::kernels::bench_available();
    const char* kernels[] = {"softmax_entropy", "softmax", "row_metrics"};
    auto set_of = [](const RowBench* b) -> const attn::kernels::KernelSet* {
        for (const attn::kernels::KernelSet* s : attn::kernels::available())
            if (attn::kernels::bench_for(*s) == b) return s;
        return nullptr;
    };
    std::vector<Result> results;

    for (int n : opt.sizes) {
        if (n <= 0) usage("sizes must be > 0");
        const std::size_t elems = static_cast<std::size_t>(n) * n;
        std::vector<float> in(elems), out(elems), ent(static_cast<std::size_t>(n));
        std::vector<attn::RowMetrics> metrics(static_cast<std::size_t>(n));
        std::mt19937 rng(1234u + static_cast<unsigned>(n));
        std::normal_distribution<float> dist(0.0f, 3.0f);
        for (float& x : in) x = dist(rng);

        // One entry per (set, kernel); each is first checked, then calibrated to >= min_ms a run.
        struct Job {
            const RowBench* set;
            int kernel;
            int reps;
            Result res;
        };
        std::vector<Job> jobs;
        for (const RowBench* set : sets)
            for (int k = 0; k < 3; ++k) {
                if (k == 2 && !set_of(set)) continue;
                if (!opt.variants.empty() && !contains(opt.variants, set->name)) continue;
                if (!contains(opt.kernels, kernels[k])) continue;
                Job job{set, k, 1, {}};
                job.res.variant = set->name;
                job.res.kernel = kernels[k];
                job.res.n = n;
                jobs.push_back(job);
            }
        auto run_once = [&](const Job& job) {
            if (job.kernel == 0) {
                job.set->softmax_entropy(in.data(), out.data(), ent.data(), n, n, 1.0f);
            } else if (job.kernel == 1) {
                job.set->softmax(in.data(), out.data(), n, n, 1.0f);
            } else {
                const attn::kernels::KernelSet* ks = set_of(job.set);
                const attn::kernels::RowParams rp;  // the row defaults, tau 1
                for (int r = 0; r < n; ++r) {
                    const std::size_t at = static_cast<std::size_t>(r) * n;
                    ks->softmax_row(in.data() + at, nullptr, n, rp, out.data() + at,
                                    metrics[static_cast<std::size_t>(r)]);
                    ent[static_cast<std::size_t>(r)] = static_cast<float>(metrics[static_cast<std::size_t>(r)].entropy);
                }
            }
        };
        for (Job& job : jobs) {
            run_once(job);
            check(in, out, ent, n, job.kernel != 1, job.res.err_w, job.res.err_h);
            const auto t0 = Clock::now();
            run_once(job);
            const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
            job.reps = std::max(1, static_cast<int>(std::ceil(opt.min_ms / std::max(ms, 1e-3))));
        }
        for (int r = 0; r < opt.runs; ++r)
            for (Job& job : jobs) {
                const auto t0 = Clock::now();
                for (int i = 0; i < job.reps; ++i) run_once(job);
                const double s = std::chrono::duration<double>(Clock::now() - t0).count();
                job.res.runs.push_back(static_cast<double>(elems) * job.reps / s / 1e6);
            }
        for (Job& job : jobs) results.push_back(job.res);
    }

    // Table: M elements / s and the ratio to the scalar set of the same n and kernel.
    std::printf("%-6s %-16s %-12s %12s %8s %8s %10s %10s\n", "n", "kernel", "variant", "Melem/s", "x scalar", "x fused",
                "max|dw|", "max|dH|");
    for (const Result& r : results) {
        double base = 0.0;
        for (const Result& b : results)
            if (b.variant == "scalar" && b.n == r.n && b.kernel == r.kernel) base = median(b.runs);
        const double m = median(r.runs);
        char dh[32] = "-", ratio[32] = "-", fused[32] = "-";
        if (r.kernel == "row_metrics")
            for (const Result& b : results)
                if (b.variant == r.variant && b.n == r.n && b.kernel == "softmax_entropy")
                    std::snprintf(fused, sizeof fused, "%.2f", median(b.runs) / m);
        if (r.kernel != "softmax") std::snprintf(dh, sizeof dh, "%.2e", r.err_h);
        if (base > 0) std::snprintf(ratio, sizeof ratio, "%.2f", m / base);
        std::printf("%-6d %-16s %-12s %12.1f %8s %8s %10.2e %10s\n", r.n, r.kernel.c_str(), r.variant.c_str(), m, ratio,
                    fused, r.err_w, dh);
    }

    if (!opt.json.empty()) {
        std::ofstream f(opt.json);
        if (!f) {
            std::cerr << "attn_bench: cannot write " << opt.json << "\n";
            return 1;
        }
        f.precision(6);
        f << "{\n \"machine\": {\"cpu\": \"" << json_escape(cpu_model())
          << "\", \"cores\": " << std::thread::hardware_concurrency() << "},\n";
        f << " \"config\": {\"runs\": " << opt.runs << ", \"min_ms\": " << opt.min_ms
          << ", \"tau\": 1, \"input\": \"normal(0, 3), seeded\"},\n \"results\": [";
        for (std::size_t i = 0; i < results.size(); ++i) {
            const Result& r = results[i];
            f << (i ? ",\n  " : "\n  ") << "{\"variant\": \"" << r.variant << "\", \"n\": " << r.n << ", \"kernel\": \""
              << r.kernel << "\", \"melems_per_s\": " << median(r.runs) << ", \"runs\": [";
            for (std::size_t k = 0; k < r.runs.size(); ++k) f << (k ? ", " : "") << r.runs[k];
            f << "], \"max_abs_err_weights\": " << r.err_w << ", \"max_abs_err_entropy\": ";
            if (r.kernel == "softmax")
                f << "null";
            else
                f << r.err_h;
            f << "}";
        }
        f << "\n ]\n}\n";
    }
    return 0;
}
