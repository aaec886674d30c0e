// The one tolerance helper of the C++ tests (after xsimd's): NaN matches NaN, an infinity matches
// only the same infinity, otherwise |got - want| <= max(abs_tol, rel_tol * |want|).
//
// The core stores float32 matrices and returns double metrics; 1e-6 absolute (relative for values
// above 1) covers float32 rounding of the weights and outputs the tests compare.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

namespace attn_test {

inline constexpr double kAbsTol = 1e-6;
inline constexpr double kRelTol = 1e-6;

inline bool approx_equal(double got, double want, double abs_tol = kAbsTol, double rel_tol = kRelTol) {
    if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
    if (std::isinf(want) || std::isinf(got)) return got == want;
    return std::fabs(got - want) <= std::max(abs_tol, rel_tol * std::fabs(want));
}

/// Catch2 matcher: CHECK_THAT(value, Near(0.73105857)). The failure message prints both numbers.
class NearMatcher : public Catch::MatcherBase<double> {
public:
    NearMatcher(double want, double abs_tol, double rel_tol) : want_(want), abs_tol_(abs_tol), rel_tol_(rel_tol) {}
    bool match(const double& got) const override { return approx_equal(got, want_, abs_tol_, rel_tol_); }
    std::string describe() const override {
        std::ostringstream os;
        os.precision(12);
        os << "is within max(" << abs_tol_ << ", " << rel_tol_ << " * |want|) of " << want_;
        return os.str();
    }

private:
    double want_, abs_tol_, rel_tol_;
};

inline NearMatcher Near(double want, double abs_tol = kAbsTol, double rel_tol = kRelTol) {
    return NearMatcher(want, abs_tol, rel_tol);
}

}  // namespace attn_test
