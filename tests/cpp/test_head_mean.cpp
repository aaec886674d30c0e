// mean_heads (analysis.hpp): the layer-averaged weights of the import's token views. Expected
// values are worked by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "attn/analysis.hpp"
#include "attn/error.hpp"

TEST_CASE("mean_heads averages the finite values of each cell over the heads", "[analysis][mean_heads]") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    // Two heads of 2 x 2; head 1 does not see key 1 of query 0; neither sees key 1 of query 1.
    const std::vector<std::vector<float>> heads = {{0.25f, 0.75f, 1.0f, nan}, {1.0f, nan, 0.5f, nan}};
    const attn::Matrix m = attn::mean_heads(heads, 2, 2);
    REQUIRE(m.rows == 2);
    REQUIRE(m.cols == 2);
    CHECK(m.data[0] == 0.625f);  // (0.25 + 1) / 2
    CHECK(m.data[1] == 0.75f);   // only head 0
    CHECK(m.data[2] == 0.75f);   // (1 + 0.5) / 2
    CHECK(std::isnan(m.data[3]));
}

TEST_CASE("mean_heads refuses no heads and wrong sizes", "[analysis][mean_heads]") {
    CHECK_THROWS_AS(attn::mean_heads({}, 1, 1), attn::Error);
    CHECK_THROWS_AS(attn::mean_heads({{1.0f, 2.0f}}, 1, 1), attn::Error);
    CHECK_THROWS_AS(attn::mean_heads({{1.0f}}, 0, 1), attn::Error);
}
