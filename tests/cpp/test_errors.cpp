// Validation: every bad input is an attn::Error with the documented code (attention.hpp), and
// validate() throws exactly what compute() throws.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "attn/attention.hpp"
#include "fixtures.hpp"

using attn::ErrorCode;
using attn_test::kInf;
using attn_test::kNaN;
using attn_test::mat;

namespace {

/// Seed example 1 (valid): the problem each test breaks in one place.
attn::Problem good_qkv() {
    attn::Problem p;
    p.q = mat({{1, 0}});
    p.k = mat({{1, 0}, {0, 1}});
    p.v = mat({{2, 0}, {0, 4}});
    return p;
}

/// Runs `f` and returns the code of the attn::Error it throws; fails the test if it throws
/// nothing or something else.
template <class F>
ErrorCode code_thrown(F&& f, std::string* field = nullptr) {
    try {
        f();
    } catch (const attn::Error& e) {
        if (field) *field = e.field();
        return e.code();
    } catch (const std::exception& e) {
        FAIL("threw a non-attn exception: " << e.what());
    }
    FAIL("no exception thrown");
    return ErrorCode::kBadState;  // unreachable
}

/// compute() and validate() both reject `p` with `want`.
void check_rejected(const attn::Problem& p, ErrorCode want) {
    INFO("expected code " << attn::to_string(want));
    std::string field;
    const ErrorCode got = code_thrown([&] { (void)attn::compute(p); }, &field);
    INFO("compute() threw " << attn::to_string(got) << " (field '" << field << "')");
    CHECK(got == want);
    CHECK_FALSE(field.empty());
    const ErrorCode got_v = code_thrown([&] { attn::validate(p); });
    INFO("validate() threw " << attn::to_string(got_v));
    CHECK(got_v == want);
}

}  // namespace

TEST_CASE("a valid problem passes validate()", "[errors]") {
    CHECK_NOTHROW(attn::validate(good_qkv()));
    CHECK_NOTHROW(attn::validate(attn_test::logits_problem(mat({{0, 1}}))));
    CHECK_NOTHROW(attn::validate(attn_test::weights_problem(mat({{0.25f, 0.75f}}))));
}

TEST_CASE("shape mismatches", "[errors][shape]") {
    attn::Problem p = good_qkv();
    SECTION("Q and K with different d_k") {
        p.k = mat({{1, 0, 0}, {0, 1, 0}});
    }
    SECTION("V rows != K rows") {
        p.v = mat({{2, 0}, {0, 4}, {1, 1}});
    }
    SECTION("key padding of the wrong length") {
        p.mask.key_padding = {0, 0, 0};
    }
    SECTION("allow-matrix of the wrong size") {
        p.mask.allow = {1, 1, 1};
    }
    SECTION("logits mode: V rows != n_k") {
        p = attn_test::logits_problem(mat({{0, 1}}));
        p.v = mat({{1}, {2}, {3}});
    }
    SECTION("weights mode: padding of the wrong length") {
        p = attn_test::weights_problem(mat({{0.5f, 0.5f}}));
        p.mask.key_padding = {0};
    }
    check_rejected(p, ErrorCode::kShapeMismatch);
}

TEST_CASE("non-finite inputs", "[errors][nonfinite]") {
    attn::Problem p = good_qkv();
    SECTION("NaN in Q") {
        p.q(0, 1) = kNaN;
    }
    SECTION("Inf in K") {
        p.k(1, 0) = kInf;
    }
    SECTION("NaN in V") {
        p.v(0, 0) = kNaN;
    }
    SECTION("-Inf in V") {
        p.v(1, 1) = -kInf;
    }
    SECTION("NaN in a visible logit") {
        p = attn_test::logits_problem(mat({{0, kNaN}}));
    }
    SECTION("+Inf in a visible logit") {
        p = attn_test::logits_problem(mat({{kInf, 0}}));
    }
    SECTION("NaN in a visible weight") {
        p = attn_test::weights_problem(mat({{kNaN, 0.5f}}));
    }
    check_rejected(p, ErrorCode::kNonFinite);
}

TEST_CASE("bad temperature", "[errors][temperature]") {
    const double tau = GENERATE(0.0, -0.0, -1.0, std::numeric_limits<double>::quiet_NaN(),
                                std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity());
    INFO("tau = " << tau);
    attn::Problem p = good_qkv();
    p.tau = tau;
    check_rejected(p, ErrorCode::kBadTemperature);
    std::string field;
    (void)code_thrown([&] { (void)attn::compute(p); }, &field);
    CHECK(field == "tau");  // attention.hpp / error.hpp name the field "tau"
}

TEST_CASE("temperature also checked in logits and weights modes", "[errors][temperature]") {
    attn::Problem p =
        GENERATE(attn_test::logits_problem(mat({{0, 1}})), attn_test::weights_problem(mat({{0.5f, 0.5f}})));
    p.tau = 0;
    check_rejected(p, ErrorCode::kBadTemperature);
}

TEST_CASE("invalid values", "[errors][invalid]") {
    attn::Problem p = good_qkv();
    SECTION("negative weight") {
        p = attn_test::weights_problem(mat({{0.5f, -0.1f, 0.6f}}));
    }
    SECTION("top_k 0") {
        p.top_k = 0;
    }
    SECTION("top_k negative") {
        p.top_k = -3;
    }
    SECTION("infinite scale") {
        p.scale = std::numeric_limits<double>::infinity();
    }
    SECTION("negative window") {
        p.mask.window = -1;
    }
    check_rejected(p, ErrorCode::kInvalidValue);
}

TEST_CASE("too large", "[errors][limits]") {
    attn::Problem p;
    SECTION("n_q > kMaxTokens") {
        p.q = attn::Matrix(attn::kMaxTokens + 1, 1, 1.0f);
        p.k = attn::Matrix(2, 1, 1.0f);
    }
    SECTION("n_k > kMaxTokens") {
        p.q = attn::Matrix(1, 1, 1.0f);
        p.k = attn::Matrix(attn::kMaxTokens + 1, 1, 1.0f);
    }
    SECTION("logits with n_k > kMaxTokens") {
        p = attn_test::logits_problem(attn::Matrix(1, attn::kMaxTokens + 1, 0.0f));
    }
    SECTION("d_k > kMaxDim") {
        p.q = attn::Matrix(1, attn::kMaxDim + 1, 0.0f);
        p.k = attn::Matrix(1, attn::kMaxDim + 1, 0.0f);
    }
    SECTION("d_v > kMaxDim") {
        p.q = attn::Matrix(1, 1, 0.0f);
        p.k = attn::Matrix(1, 1, 0.0f);
        p.v = attn::Matrix(1, attn::kMaxDim + 1, 0.0f);
    }
    check_rejected(p, ErrorCode::kTooLarge);
}

TEST_CASE("exactly kMaxTokens keys is accepted", "[errors][limits]") {
    // All-zero logits: uniform 1/4096 over the row.
    const attn::Result r = attn::compute(attn_test::logits_problem(attn::Matrix(1, attn::kMaxTokens, 0.0f)));
    REQUIRE(r.n_k == attn::kMaxTokens);
    CHECK(r.rows[0].visible == attn::kMaxTokens);
    CHECK(std::fabs(r.weights(0, 4095) - 1.0 / 4096) < 1e-9);
    CHECK(std::fabs(r.rows[0].entropy - std::log(4096.0)) < 1e-5);
}

TEST_CASE("exactly kMaxTokens queries and kMaxDim dimensions are accepted", "[errors][limits]") {
    attn::Problem p;
    p.q = attn::Matrix(attn::kMaxTokens, attn::kMaxDim, 0.0f);
    p.k = attn::Matrix(1, attn::kMaxDim, 0.0f);
    p.v = attn::Matrix(1, attn::kMaxDim, 2.0f);
    const attn::Result r = attn::compute(p);
    REQUIRE(r.n_q == attn::kMaxTokens);
    REQUIRE(r.d_v == attn::kMaxDim);
    // One key: every query puts weight 1 on it and outputs V's row.
    CHECK(r.weights(attn::kMaxTokens - 1, 0) == 1.0f);
    CHECK(r.output(attn::kMaxTokens - 1, attn::kMaxDim - 1) == 2.0f);
}

TEST_CASE("error codes have stable names", "[errors]") {
    CHECK(std::string(attn::to_string(ErrorCode::kShapeMismatch)) == "shape_mismatch");
    CHECK(std::string(attn::to_string(ErrorCode::kNonFinite)) == "non_finite");
    CHECK(std::string(attn::to_string(ErrorCode::kBadTemperature)) == "bad_temperature");
    CHECK(std::string(attn::to_string(ErrorCode::kInvalidValue)) == "invalid_value");
    CHECK(std::string(attn::to_string(ErrorCode::kTooLarge)) == "too_large");
    CHECK(std::string(attn::to_string(ErrorCode::kBadState)) == "bad_state");
}

TEST_CASE("unknown mode name is rejected", "[errors]") {
    CHECK(code_thrown([] { (void)attn::mode_from_string("foo"); }) == ErrorCode::kInvalidValue);
    CHECK(code_thrown([] { (void)attn::mode_from_string(""); }) == ErrorCode::kInvalidValue);
}

TEST_CASE("a score that overflows float32 is an error, not a masked key", "[errors][overflow]") {
    // 1e20 * 1e20 = 1e40 > FLT_MAX: the score is +inf; -1e20 * 1e20 gives -inf, which must not be
    // read as "not visible".
    attn::Problem p;
    p.mode = attn::Mode::qkv;
    p.q = attn_test::mat({{1e20f, 0}});
    p.k = attn_test::mat({{1e20f, 0}, {0, 1}});
    p.scale = 1;
    for (float sign : {1.0f, -1.0f}) {
        p.k(0, 0) = sign * 1e20f;
        try {
            attn::compute(p);
            FAIL("overflowing score accepted");
        } catch (const attn::Error& e) {
            CHECK(e.code() == attn::ErrorCode::kNonFinite);
            CHECK(e.field() == "scores");
        }
    }
    p.mask.key_padding = {1, 0};  // the overflowing key is padded away: no error
    CHECK_NOTHROW(attn::compute(p));
}
