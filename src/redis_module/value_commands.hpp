// src/redis_module/value_commands.hpp — what the BF.* and CF.* commands do alike, for a value type
// (bloom_value, cuckoo_value) and the data type registered for it: find the key's value (or say
// RedisBloom's "not found" / WRONGTYPE), make one for a writer, and answer EXISTS and MEXISTS.
#pragma once

#include <string_view>

#include "redis_module/command_call.hpp"
#include "redis_module/module_config.hpp"

namespace bloomkit::redis_module {

/// The value a command that needs one works on: "ERR not found" for a missing key, WRONGTYPE
/// for a key of another type.
template <class Value>
Value& existing(const open_key& key, data_type* type) {
    if (Value* value = key.value<Value>(type)) return *value;
    if (key.other_type(type)) throw module_error(wrongtype_message);
    throw module_error("ERR not found");
}

/// The value at a key opened for writing, made from `request` when the key is missing.
template <class Value, class Request>
Value& existing_or_new(const open_key& key, data_type* type, const Request& request) {
    if (Value* value = key.value<Value>(type)) return *value;
    if (key.other_type(type)) throw module_error(wrongtype_message);
    auto* value = new Value(request, config.max_filter_bytes);
    api.module_type_set_value(key.handle(), type, value);
    return *value;
}

/// A membership answer for a key of any type: RedisBloom answers 0 for a missing key and for a
/// key of another type alike.
template <class Value>
bool holds(const open_key& key, data_type* type, std::string_view item) {
    const Value* value = key.value<Value>(type);
    return value != nullptr && value->contains(item);
}

/// BF.EXISTS / CF.EXISTS key item (`Type`: where OnLoad stored the data type).
template <class Value, data_type* const* Type>
int exists_command(const command_call& call) {
    if (call.size() != 3) return call.wrong_arity();
    const open_key key = call.key(open_read);
    return call.boolean(holds<Value>(key, *Type, call.arg(2)));
}

/// BF.MEXISTS / CF.MEXISTS key item [item ...]
template <class Value, data_type* const* Type>
int mexists_command(const command_call& call) {
    if (call.size() < 3) return call.wrong_arity();
    const open_key key = call.key(open_read);
    call.array(call.size() - 2);
    for (int i = 2; i < call.size(); ++i) call.boolean(holds<Value>(key, *Type, call.arg(i)));
    return module_ok;
}

}  // namespace bloomkit::redis_module
