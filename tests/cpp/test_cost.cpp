// The cost of a state (multihead.hpp layer_cost / head_cost): the page's cost line, counted from
// the shapes alone.
//
// Golden values, all by hand from the formulas (no code):
//  * the "multihead" lesson preset: n = 4, d_model = 4, two heads of d_k = d_v = 2, W_O 4 x 4.
//    Projections per head n d_model (2 d_k + d_v) = 16 * 6 = 96, two heads 192; Q K^T and A V
//    per head n^2 (d_k + d_v) = 16 * 4 = 64, two heads 128; W_O n * 4 * 4 = 64.
//  * n = 3, d_model = 5, heads (d_k, d_v) = (1, 3), (4, 2), (2, 1), no W_O: projections
//    15 * 5 + 15 * 10 + 15 * 5 = 300; attention 9 * 4 + 9 * 6 + 9 * 3 = 117; output 0.
//  * worked example 1 (qkv, n_q = 1, n_k = 2, d_k = d_v = 2): 2 cells, 8 bytes, Q K^T 1*2*2 = 4,
//    A V 4, one block of min(64, 1) = 1 row: 2 * 4 * 1 * 2 = 16 bytes.
//  * a 512 x 512 qkv head, d_k = d_v = 64, 64-row blocks: 262144 cells, 1048576 bytes (1 MiB),
//    Q K^T and A V 262144 * 64 = 16777216 each, a block 2 * 4 * 64 * 512 = 262144 bytes.
//  * logits 3 x 3 with d_v = 1: no Q K^T (the scores are given), A V 9, a block 2 * 4 * 3 * 3 = 72.
//  * 65536 x 65536 with d_k = 512: 2^32 cells and 2^41 = 2199023255552 multiply-adds, beyond int32.
#include <catch2/catch.hpp>

#include "attn/error.hpp"
#include "attn/multihead.hpp"

namespace {

attn::ErrorCode code_of(void (*fn)()) {
    try {
        fn();
    } catch (const attn::Error& e) {
        return e.code();
    }
    FAIL("expected an attn::Error");
    return attn::ErrorCode::kBadState;
}

}  // namespace

TEST_CASE("layer_cost: the multihead lesson preset", "[cost]") {
    attn::LayerShape s;
    s.n = 4;
    s.d_model = 4;
    s.d_k = {2, 2};
    s.d_v = {2, 2};
    s.wo_rows = 4;
    s.wo_cols = 4;
    const attn::LayerCost c = attn::layer_cost(s);
    CHECK(c.projection_macs == 192);
    CHECK(c.attention_macs == 128);
    CHECK(c.output_macs == 64);
}

TEST_CASE("layer_cost: unequal heads without W_O", "[cost]") {
    attn::LayerShape s;
    s.n = 3;
    s.d_model = 5;
    s.d_k = {1, 4, 2};
    s.d_v = {3, 2, 1};
    const attn::LayerCost c = attn::layer_cost(s);
    CHECK(c.projection_macs == 300);
    CHECK(c.attention_macs == 117);
    CHECK(c.output_macs == 0);
}

TEST_CASE("layer_cost refuses a shape that is not one", "[cost]") {
    CHECK(code_of([] {
              attn::LayerShape s;
              s.n = 2;
              s.d_model = 2;
              s.d_k = {1, 1};
              s.d_v = {1};
              attn::layer_cost(s);
          }) == attn::ErrorCode::kShapeMismatch);
    CHECK(code_of([] {
              attn::LayerShape s;
              s.n = -1;
              attn::layer_cost(s);
          }) == attn::ErrorCode::kInvalidValue);
}

TEST_CASE("head_cost: worked example 1", "[cost]") {
    const attn::HeadCost c = attn::head_cost(attn::Mode::qkv, 1, 2, 2, 2, 64);
    CHECK(c.cells == 2);
    CHECK(c.matrix_bytes == 8);
    CHECK(c.score_macs == 4);
    CHECK(c.output_macs == 4);
    CHECK(c.stream_bytes == 16);
}

TEST_CASE("head_cost: a 512-key head in 64-row blocks", "[cost]") {
    const attn::HeadCost c = attn::head_cost(attn::Mode::qkv, 512, 512, 64, 64, 64);
    CHECK(c.cells == 262144);
    CHECK(c.matrix_bytes == 1048576);
    CHECK(c.score_macs == 16777216);
    CHECK(c.output_macs == 16777216);
    CHECK(c.stream_bytes == 262144);
}

TEST_CASE("head_cost: given logits have no Q K^T", "[cost]") {
    const attn::HeadCost c = attn::head_cost(attn::Mode::logits, 3, 3, 0, 1, 64);
    CHECK(c.cells == 9);
    CHECK(c.score_macs == 0);
    CHECK(c.output_macs == 9);
    CHECK(c.stream_bytes == 72);
    CHECK(attn::head_cost(attn::Mode::weights, 3, 3, 5, 0, 64).score_macs == 0);
}

TEST_CASE("head_cost: counts beyond int32 stay exact", "[cost]") {
    const attn::HeadCost c = attn::head_cost(attn::Mode::qkv, 65536, 65536, 512, 0, 64);
    CHECK(c.cells == 4294967296.0);
    CHECK(c.score_macs == 2199023255552.0);
    CHECK(c.output_macs == 0);
}

TEST_CASE("head_cost refuses negative sizes and empty blocks", "[cost]") {
    CHECK(code_of([] { attn::head_cost(attn::Mode::qkv, -1, 2, 2, 2, 64); }) == attn::ErrorCode::kInvalidValue);
    CHECK(code_of([] { attn::head_cost(attn::Mode::qkv, 1, 2, 2, 2, 0); }) == attn::ErrorCode::kInvalidValue);
}
