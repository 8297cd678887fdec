// src/redis_module/bloom_commands.cpp — the BF.* commands, with RedisBloom 2.6's syntax, replies
// and error texts (docs/design/redis_module.md §1–2 give each one's source), over bloom_value.
#include "redis_module/command_table.hpp"

#include <optional>
#include <string>

#include "redis_module/bloom_value.hpp"
#include "redis_module/command_call.hpp"
#include "redis_module/dump_commands.hpp"
#include "redis_module/module_config.hpp"
#include "redis_module/value_commands.hpp"

namespace bloomkit::redis_module {
namespace {

bloom_value& existing(const open_key& key) { return redis_module::existing<bloom_value>(key, bloom_type); }

bloom_value& existing_or_new(const open_key& key, const bloom_request& request) {
    return redis_module::existing_or_new<bloom_value>(key, bloom_type, request);
}

bloom_request default_request() { return {config.initial_size, config.error_rate, 2}; }

/// BF.MADD's and BF.INSERT's reply: one answer per item, stopping at the first error, which is
/// the array's last element (RedisBloom's "ERR non scaling filter is full").
int add_items(const command_call& call, bloom_value& value, int first) {
    call.array(postponed_length);
    long replied = 0;
    for (int i = first; i < call.size(); ++i, ++replied) {
        try {
            call.boolean(value.add(call.arg(i), config.max_filter_bytes));
        } catch (const module_error& e) {
            call.error(e.what());
            ++replied;
            break;
        }
    }
    call.set_array_length(replied);
    call.replicate();
    return module_ok;
}

// BF.RESERVE key error_rate capacity [EXPANSION expansion] [NONSCALING]
int reserve(const command_call& call) {
    if (call.size() < 4 || call.size() > 7) return call.wrong_arity();
    bloom_request request;
    const std::optional<double> rate = call.number(2);
    if (!rate) return call.error("ERR bad error rate");
    if (!(*rate > 0 && *rate < 1)) return call.error("ERR (0 < error rate range < 1) ");
    const std::optional<long long> capacity = call.integer(3);
    if (!capacity) return call.error("ERR bad capacity");
    if (*capacity <= 0) return call.error("ERR (capacity should be larger than 0)");
    request.error_rate = *rate;
    request.capacity = static_cast<std::uint64_t>(*capacity);
    const bool nonscaling = call.find(4, "NONSCALING").has_value();
    if (const std::optional<int> at = call.find(4, "EXPANSION")) {
        if (*at == call.size() - 1) return call.error("ERR no expansion");
        if (nonscaling) return call.error("Nonscaling filters cannot expand");
        const std::optional<long long> expansion = call.integer(*at + 1);
        if (!expansion) return call.error("ERR bad expansion");
        if (*expansion < 1) return call.error("ERR expansion should be greater or equal to 1");
        request.expansion = static_cast<std::uint64_t>(*expansion);
    }
    if (nonscaling) request.expansion = 0;
    const open_key key = call.key(open_read | open_write);
    if (key.value<bloom_value>(bloom_type) != nullptr) return call.error("ERR item exists");
    if (key.other_type(bloom_type)) return call.error(wrongtype_message);
    api.module_type_set_value(key.handle(), bloom_type, new bloom_value(request, config.max_filter_bytes));
    call.replicate();
    return call.ok();
}

// BF.ADD key item
int add(const command_call& call) {
    if (call.size() != 3) return call.wrong_arity();
    const open_key key = call.key(open_read | open_write);
    bloom_value& value = existing_or_new(key, default_request());
    const bool added = value.add(call.arg(2), config.max_filter_bytes);
    call.replicate();
    return call.boolean(added);
}

// BF.MADD key item [item ...]
int madd(const command_call& call) {
    if (call.size() < 3) return call.wrong_arity();
    const open_key key = call.key(open_read | open_write);
    return add_items(call, existing_or_new(key, default_request()), 2);
}

/// BF.INSERT's options, read left to right up to ITEMS by their first letters, as RedisBloom
/// reads them.
struct insert_options {
    bloom_request request = default_request();
    bool nocreate = false;
    int first_item = 0;
};

insert_options parse_insert(const command_call& call) {
    insert_options options;
    bool nonscaling = false;
    const auto value_of = [&](int i) {
        if (i + 1 >= call.size()) throw arity_error{};
        return i + 1;
    };
    int i = 2;
    while (i < call.size() && options.first_item == 0) {
        const std::string_view word = call.arg(i);
        const char first = word.empty() ? '\0' : static_cast<char>(word[0] | 0x20);
        if (first == 'i') {
            options.first_item = i + 1;
        } else if (first == 'e' && word.size() > 1 && (word[1] | 0x20) == 'r') {
            const std::optional<double> rate = call.number(value_of(i));
            if (!rate) throw module_error("Bad error rate");
            options.request.error_rate = *rate;
            i += 2;
        } else if (first == 'e') {
            const std::optional<long long> expansion = call.integer(value_of(i));
            if (!expansion) throw module_error("Bad expansion");
            if (*expansion < 1) throw module_error("Bad argument received");
            options.request.expansion = static_cast<std::uint64_t>(*expansion);
            i += 2;
        } else if (first == 'c') {
            const std::optional<long long> capacity = call.integer(value_of(i));
            if (!capacity) throw module_error("Bad capacity");
            if (*capacity < 1) throw module_error("Bad argument received");
            options.request.capacity = static_cast<std::uint64_t>(*capacity);
            i += 2;
        } else if (first == 'n' && word.size() > 2 && (word[2] | 0x20) == 'c') {
            options.nocreate = true;
            ++i;
        } else if (first == 'n') {
            nonscaling = true;
            ++i;
        } else {
            throw module_error("Unknown argument received");
        }
    }
    if (options.first_item == 0 || options.first_item >= call.size()) throw arity_error{};
    if (!(options.request.error_rate > 0 && options.request.error_rate < 1))
        throw module_error("Bad argument received");
    if (nonscaling) options.request.expansion = 0;
    return options;
}

// BF.INSERT key [CAPACITY cap] [ERROR rate] [EXPANSION exp] [NOCREATE] [NONSCALING] ITEMS item...
int insert(const command_call& call) {
    if (call.size() < 4) return call.wrong_arity();
    const insert_options options = parse_insert(call);
    const open_key key = call.key(open_read | open_write);
    if (options.nocreate && key.empty()) return call.error("ERR not found");
    return add_items(call, existing_or_new(key, options.request), options.first_item);
}

/// BF.INFO's fields: the word that asks for one, and the name the full reply gives it.
struct info_field {
    const char* word;
    const char* name;
    std::optional<std::uint64_t> (*of)(const bloom_value&);
};

constexpr info_field info_fields[] = {
    {"CAPACITY", "Capacity", [](const bloom_value& v) -> std::optional<std::uint64_t> { return v.capacity(); }},
    {"SIZE", "Size", [](const bloom_value& v) -> std::optional<std::uint64_t> { return v.memory_bytes(); }},
    {"FILTERS", "Number of filters",
     [](const bloom_value& v) -> std::optional<std::uint64_t> { return v.filter_count(); }},
    {"ITEMS", "Number of items inserted",
     [](const bloom_value& v) -> std::optional<std::uint64_t> { return v.items(); }},
    {"EXPANSION", "Expansion rate", [](const bloom_value& v) { return v.expansion(); }},
};

void reply_field_value(const command_call& call, std::optional<std::uint64_t> value) {
    if (value) call.integer_reply(static_cast<long long>(*value));
    else call.null();
}

// BF.INFO key [CAPACITY | SIZE | FILTERS | ITEMS | EXPANSION]
int info(const command_call& call) {
    if (call.size() != 2 && call.size() != 3) return call.wrong_arity();
    const open_key key = call.key(open_read);
    const bloom_value& value = existing(key);
    if (call.size() == 3) {
        for (const info_field& field : info_fields) {
            if (!call.is(2, field.word)) continue;
            const std::optional<std::uint64_t> answer = field.of(value);
            if (call.resp3()) {
                call.map(1);
                call.simple(field.name);
            } else {
                call.array(1);
            }
            reply_field_value(call, answer);
            return module_ok;
        }
        return call.error("Invalid information value");
    }
    call.map(std::size(info_fields));
    for (const info_field& field : info_fields) {
        call.simple(field.name);
        reply_field_value(call, field.of(value));
    }
    return module_ok;
}

// BF.CARD key
int card(const command_call& call) {
    if (call.size() != 2) return call.wrong_arity();
    const open_key key = call.key(open_read);
    if (key.empty()) return call.integer_reply(0);
    return call.integer_reply(static_cast<long long>(existing(key).items()));
}

// BF.DEBUG key: RedisBloom's description of the stages (redis-py's tests compare it across a dump
// and a load).
int debug(const command_call& call) {
    if (call.size() != 2) return call.wrong_arity();
    const open_key key = call.key(open_read);
    const std::vector<std::string> lines = existing(key).debug_lines();
    call.array(static_cast<long>(lines.size()));
    for (const std::string& line : lines) call.simple(line.c_str());
    return module_ok;
}

// BF.SCANDUMP key iterator
int scandump(const command_call& call) {
    if (call.size() != 3) return call.wrong_arity();
    const std::optional<long long> iterator = call.integer(2);
    if (!iterator) return call.error("Second argument must be numeric");
    const open_key key = call.key(open_read);
    const bloom_value& value = existing(key);
    reply_dump_chunk(call, value, *iterator, dump_end::empty_string);
    return module_ok;
}

// BF.LOADCHUNK key iterator data
int loadchunk(const command_call& call) {
    if (call.size() != 4) return call.wrong_arity();
    const std::optional<long long> iterator = call.integer(2);
    if (!iterator) return call.error("ERR Second argument must be numeric");
    const open_key key = call.key(open_read | open_write);
    if (key.other_type(bloom_type)) return call.error(wrongtype_message);
    load_dump_chunk<bloom_value>(key, bloom_type, *iterator, call.arg(3), config.max_filter_bytes);
    call.replicate();
    return call.ok();
}

}  // namespace

void register_bloom_commands(command_table& table) {
    table.add("bf.reserve", command_entry<reserve>, "write deny-oom");
    table.add("bf.add", command_entry<add>, "write deny-oom");
    table.add("bf.madd", command_entry<madd>, "write deny-oom");
    table.add("bf.insert", command_entry<insert>, "write deny-oom");
    table.add("bf.exists", command_entry<exists_command<bloom_value, &bloom_type>>, "readonly fast");
    table.add("bf.mexists", command_entry<mexists_command<bloom_value, &bloom_type>>, "readonly fast");
    table.add("bf.info", command_entry<info>, "readonly fast");
    table.add("bf.card", command_entry<card>, "readonly fast");
    table.add("bf.scandump", command_entry<scandump>, "readonly");
    table.add("bf.debug", command_entry<debug>, "readonly");
    table.add("bf.loadchunk", command_entry<loadchunk>, "write deny-oom");
}

}  // namespace bloomkit::redis_module
