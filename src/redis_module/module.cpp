// src/redis_module/module.cpp — bloomkit.so's entry: what Redis calls when it loads the module
// (redis-server --loadmodule /usr/lib/redis/modules/bloomkit.so [ARGUMENT VALUE ...]).
//
// Arguments, in pairs: INITIAL_SIZE n and ERROR_RATE r (what BF.ADD creates a filter with, as in
// RedisBloom), MAX_FILTER_BYTES n (the most one filter may take). A bad one stops the load with a
// message in the server's log.
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include "redis_module/bloom_value.hpp"
#include "redis_module/command_table.hpp"
#include "redis_module/cuckoo_value.hpp"
#include "redis_module/module_api.hpp"
#include "redis_module/module_config.hpp"
#include "redis_module/server_memory.hpp"
#include "redis_module/value_type.hpp"

namespace bloomkit::redis_module {
namespace {

constexpr int module_version = 1;

/// The type names Redis stores with every value in an RDB: 9 characters, none RedisBloom's
/// (MBbloom--, MBbloomCF) or valkey-bloom's (bloomfltr).
constexpr const char* bloom_type_name = "bkf-bloom";
constexpr const char* cuckoo_type_name = "bkfcuckoo";

std::string_view text_of(string* s) {
    std::size_t length = 0;
    const char* bytes = api.string_ptr_len(s, &length);
    return {bytes, length};
}

bool equal_ignoring_case(std::string_view a, std::string_view upper) {
    if (a.size() != upper.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if ((a[i] >= 'a' && a[i] <= 'z' ? a[i] - 'a' + 'A' : a[i]) != upper[i]) return false;
    return true;
}

/// Reads the load arguments into `config`; false (after logging why) for a bad one.
bool configure(context* ctx, string** argv, int argc) {
    const auto refuse = [&](std::string_view why) {
        api.log(ctx, "warning", "bloomkit: %.*s", static_cast<int>(why.size()), why.data());
        return false;
    };
    if (argc % 2 != 0) return refuse("load arguments come in pairs: NAME VALUE");
    for (int i = 0; i < argc; i += 2) {
        const std::string_view name = text_of(argv[i]), value = text_of(argv[i + 1]);
        long long integer = 0;
        double number = 0;
        const bool is_integer = api.string_to_long_long(argv[i + 1], &integer) == module_ok && integer > 0;
        const bool is_number = api.string_to_double(argv[i + 1], &number) == module_ok;
        if (equal_ignoring_case(name, "INITIAL_SIZE")) {
            if (!is_integer) return refuse("INITIAL_SIZE takes a positive integer, not '" + std::string(value) + "'");
            config.initial_size = static_cast<std::uint64_t>(integer);
        } else if (equal_ignoring_case(name, "ERROR_RATE")) {
            if (!is_number || !(number > 0 && number < 1))
                return refuse("ERROR_RATE takes a number between 0 and 1, not '" + std::string(value) + "'");
            config.error_rate = number;
        } else if (equal_ignoring_case(name, "MAX_FILTER_BYTES")) {
            if (!is_integer)
                return refuse("MAX_FILTER_BYTES takes a positive integer, not '" + std::string(value) + "'");
            config.max_filter_bytes = static_cast<std::uint64_t>(integer);
        } else {
            return refuse("unknown load argument '" + std::string(name) +
                          "' (INITIAL_SIZE, ERROR_RATE and MAX_FILTER_BYTES are known)");
        }
    }
    return true;
}

}  // namespace
}  // namespace bloomkit::redis_module

extern "C" __attribute__((visibility("default"))) int RedisModule_OnLoad(bloomkit::redis_module::context* ctx,
                                                                         bloomkit::redis_module::string** argv,
                                                                         int argc) {
    namespace rm = bloomkit::redis_module;
    if (!rm::bind(ctx, "bloomkit", rm::module_version)) return rm::module_err;
    if (!rm::configure(ctx, argv, argc)) return rm::module_err;
    rm::api.set_module_options(ctx, rm::option_handle_io_errors);
    bloomkit::set_filter_memory_resource(&rm::filter_memory);
    rm::type_methods bloom_methods = rm::value_type<rm::bloom_value>::methods();
    rm::type_methods cuckoo_methods = rm::value_type<rm::cuckoo_value>::methods();
    rm::bloom_type = rm::api.create_data_type(ctx, rm::bloom_type_name, rm::value_encoding_version, &bloom_methods);
    rm::cuckoo_type = rm::api.create_data_type(ctx, rm::cuckoo_type_name, rm::value_encoding_version, &cuckoo_methods);
    if (rm::bloom_type == nullptr || rm::cuckoo_type == nullptr) {
        rm::api.log(ctx, "warning", "bloomkit: cannot register the data types %s and %s", rm::bloom_type_name,
                    rm::cuckoo_type_name);
        return rm::module_err;
    }
    rm::command_table table(ctx);
    rm::register_bloom_commands(table);
    rm::register_cuckoo_commands(table);
    return table.complete() ? rm::module_ok : rm::module_err;
}
