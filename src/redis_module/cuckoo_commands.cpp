// src/redis_module/cuckoo_commands.cpp — the CF.* commands, with RedisBloom 2.6's syntax, replies
// and error texts (docs/design/redis_module.md §4), over cuckoo_value.
#include <optional>
#include <string>

#include "redis_module/command_call.hpp"
#include "redis_module/command_table.hpp"
#include "redis_module/cuckoo_value.hpp"
#include "redis_module/dump_commands.hpp"
#include "redis_module/module_config.hpp"
#include "redis_module/value_commands.hpp"

namespace bloomkit::redis_module {
namespace {

cuckoo_value& existing(const open_key& key) { return redis_module::existing<cuckoo_value>(key, cuckoo_type); }

cuckoo_value& existing_or_new(const open_key& key, const cuckoo_request& request) {
    return redis_module::existing_or_new<cuckoo_value>(key, cuckoo_type, request);
}

/// A RESERVE option's value: an integer within [low, high], or RedisBloom's two errors.
std::uint64_t option_value(const command_call& call, int at, const char* name, long long low, long long high) {
    if (at >= call.size()) throw arity_error{};  // the option is the last word: its value is missing
    const std::optional<long long> value = call.integer(at);
    if (!value) throw module_error(std::string("Couldn't parse ") + name);
    if (*value < low || *value > high)
        throw module_error(std::string(name) + ": value must be an integer between " + std::to_string(low) + " and " +
                           std::to_string(high) + ", inclusive.");
    return static_cast<std::uint64_t>(*value);
}

// CF.RESERVE key capacity [BUCKETSIZE n] [MAXITERATIONS n] [EXPANSION n]
int reserve(const command_call& call) {
    if (call.size() < 3 || call.size() % 2 == 0) return call.wrong_arity();
    const std::optional<long long> capacity = call.integer(2);
    if (!capacity) return call.error("Bad capacity");
    cuckoo_request request;
    if (const std::optional<int> at = call.find(3, "MAXITERATIONS"))
        request.max_iterations = option_value(call, *at + 1, "MAXITERATIONS", 1, 65535);
    if (const std::optional<int> at = call.find(3, "BUCKETSIZE"))
        request.bucket_size = option_value(call, *at + 1, "BUCKETSIZE", 1, 255);
    if (const std::optional<int> at = call.find(3, "EXPANSION"))
        request.expansion = option_value(call, *at + 1, "EXPANSION", 0, 32768);
    if (*capacity < static_cast<long long>(request.bucket_size * 2))
        return call.error("Capacity must be at least (BucketSize * 2)");
    request.capacity = static_cast<std::uint64_t>(*capacity);
    const open_key key = call.key(open_read | open_write);
    if (key.value<cuckoo_value>(cuckoo_type) != nullptr) return call.error("ERR item exists");
    if (key.other_type(cuckoo_type)) return call.error(wrongtype_message);
    api.module_type_set_value(key.handle(), cuckoo_type, new cuckoo_value(request, config.max_filter_bytes));
    call.replicate();
    return call.ok();
}

/// CF.ADD and CF.ADDNX: a boolean, or the reason there was no room as the error.
int add_one(const command_call& call, bool only_new) {
    if (call.size() != 3) return call.wrong_arity();
    const open_key key = call.key(open_read | open_write);
    cuckoo_value& value = existing_or_new(key, cuckoo_request{});
    const cuckoo_added added = value.add(call.arg(2), only_new, config.max_filter_bytes);
    if (added == cuckoo_added::full) return call.error(value.why_full());
    call.replicate();
    return call.boolean(added == cuckoo_added::added);
}

int add(const command_call& call) { return add_one(call, false); }
int addnx(const command_call& call) { return add_one(call, true); }

/// CF.INSERT and CF.INSERTNX key [CAPACITY cap] [NOCREATE] ITEMS item...: one answer per item,
/// all tried; a full filter is -1 (CF.INSERT in RESP3: false), not an error.
int insert_items(const command_call& call, bool only_new) {
    if (call.size() < 4) return call.wrong_arity();
    cuckoo_request request;
    bool nocreate = false;
    int first_item = 0;
    for (int i = 2; i < call.size() && first_item == 0;) {
        const std::string_view word = call.arg(i);
        const char first = word.empty() ? '\0' : static_cast<char>(word[0] | 0x20);
        if (first == 'i') {
            first_item = i + 1;
        } else if (first == 'c') {
            if (i + 1 >= call.size()) return call.wrong_arity();
            const std::optional<long long> capacity = call.integer(i + 1);
            if (!capacity) return call.error("Bad capacity");
            if (*capacity < static_cast<long long>(request.bucket_size * 2))
                return call.error("Capacity must be at least (BucketSize * 2)");
            request.capacity = static_cast<std::uint64_t>(*capacity);
            i += 2;
        } else if (first == 'n') {
            nocreate = true;
            ++i;
        } else {
            return call.error("Unknown argument received");
        }
    }
    if (first_item == 0 || first_item >= call.size()) return call.wrong_arity();
    const open_key key = call.key(open_read | open_write);
    if (nocreate && key.empty()) return call.error("ERR not found");
    cuckoo_value& value = existing_or_new(key, request);
    const bool booleans = !only_new && call.resp3();
    call.array(call.size() - first_item);
    for (int i = first_item; i < call.size(); ++i) {
        const cuckoo_added added = value.add(call.arg(i), only_new, config.max_filter_bytes);
        if (booleans) call.boolean(added == cuckoo_added::added);
        else call.integer_reply(added == cuckoo_added::added ? 1 : added == cuckoo_added::exists ? 0 : -1);
    }
    call.replicate();
    return module_ok;
}

int insert(const command_call& call) { return insert_items(call, false); }
int insertnx(const command_call& call) { return insert_items(call, true); }

// CF.DEL key item: "Not found" for a missing key and for a key of another type alike.
int del(const command_call& call) {
    if (call.size() != 3) return call.wrong_arity();
    const open_key key = call.key(open_read | open_write);
    cuckoo_value* value = key.value<cuckoo_value>(cuckoo_type);
    if (value == nullptr) return call.error("Not found");
    const bool removed = value->remove(call.arg(2));
    call.replicate();
    return call.boolean(removed);
}

// CF.COUNT key item
int count(const command_call& call) {
    if (call.size() != 3) return call.wrong_arity();
    const open_key key = call.key(open_read);
    const cuckoo_value* value = key.value<cuckoo_value>(cuckoo_type);
    return call.integer_reply(value == nullptr ? 0 : static_cast<long long>(value->count(call.arg(2))));
}

// CF.INFO key
int info(const command_call& call) {
    if (call.size() != 2) return call.wrong_arity();
    const open_key key = call.key(open_read);
    const cuckoo_value& value = existing(key);
    const std::pair<const char*, std::uint64_t> fields[] = {
        {"Size", value.memory_bytes()},
        {"Number of buckets", value.first_buckets()},
        {"Number of filters", value.filter_count()},
        {"Number of items inserted", value.items()},
        {"Number of items deleted", value.deleted()},
        {"Bucket size", cuckoo_bucket_size},
        {"Expansion rate", value.expansion()},
        {"Max iterations", cuckoo_max_kicks},
    };
    call.map(std::size(fields));
    for (const auto& [name, number] : fields) {
        call.simple(name);
        call.integer_reply(static_cast<long long>(number));
    }
    return module_ok;
}

// CF.SCANDUMP key iterator
int scandump(const command_call& call) {
    if (call.size() != 3) return call.wrong_arity();
    const std::optional<long long> iterator = call.integer(2);
    if (!iterator || *iterator < 0) return call.error("Invalid position");
    const open_key key = call.key(open_read);
    reply_dump_chunk(call, existing(key), *iterator, dump_end::null);
    return module_ok;
}

// CF.LOADCHUNK key iterator data
int loadchunk(const command_call& call) {
    if (call.size() != 4) return call.wrong_arity();
    const std::optional<long long> iterator = call.integer(2);
    if (!iterator || *iterator == 0) return call.error("Invalid position");
    const open_key key = call.key(open_read | open_write);
    if (key.other_type(cuckoo_type)) return call.error(wrongtype_message);
    load_dump_chunk<cuckoo_value>(key, cuckoo_type, *iterator, call.arg(3), config.max_filter_bytes);
    call.replicate();
    return call.ok();
}

}  // namespace

void register_cuckoo_commands(command_table& table) {
    table.add("cf.reserve", command_entry<reserve>, "write deny-oom");
    table.add("cf.add", command_entry<add>, "write deny-oom");
    table.add("cf.addnx", command_entry<addnx>, "write deny-oom");
    table.add("cf.insert", command_entry<insert>, "write deny-oom");
    table.add("cf.insertnx", command_entry<insertnx>, "write deny-oom");
    table.add("cf.exists", command_entry<exists_command<cuckoo_value, &cuckoo_type>>, "readonly fast");
    table.add("cf.mexists", command_entry<mexists_command<cuckoo_value, &cuckoo_type>>, "readonly fast");
    table.add("cf.del", command_entry<del>, "write fast");
    table.add("cf.count", command_entry<count>, "readonly fast");
    table.add("cf.info", command_entry<info>, "readonly fast");
    table.add("cf.scandump", command_entry<scandump>, "readonly");
    table.add("cf.loadchunk", command_entry<loadchunk>, "write deny-oom");
}

}  // namespace bloomkit::redis_module
