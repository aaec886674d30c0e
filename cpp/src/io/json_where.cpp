// json_where.hpp: a SAX pass over a JSON text that keeps the key of each open object.
#include "json_where.hpp"

#include <nlohmann/json.hpp>
#include <vector>

namespace attn::json_check {
namespace {

struct WhereSax : nlohmann::json_sax<nlohmann::ordered_json> {
    std::vector<std::string> keys;  // the key of each open object ("" inside arrays)
    std::string last_key;
    std::string message;
    int id = 0;
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override {
        keys.push_back(last_key);
        return true;
    }
    bool key(string_t& k) override {
        last_key = k;
        return true;
    }
    bool end_object() override {
        if (!keys.empty()) {
            last_key = keys.back();
            keys.pop_back();
        }
        return true;
    }
    bool start_array(std::size_t) override {
        keys.push_back(last_key);
        return true;
    }
    bool end_array() override { return end_object(); }
    bool parse_error(std::size_t, const std::string& token, const nlohmann::detail::exception& e) override {
        id = e.id;
        message = token;
        return false;
    }
};

}  // namespace

ParseStop where_parsing_stops(const std::string& text) {
    WhereSax where;
    nlohmann::ordered_json::sax_parse(text, &where);
    return {where.id, where.last_key, where.message};
}

}  // namespace attn::json_check
