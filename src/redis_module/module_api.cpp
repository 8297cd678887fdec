// src/redis_module/module_api.cpp — see module_api.hpp.
#include "redis_module/module_api.hpp"

#include <cstring>

namespace bloomkit::redis_module {
namespace {

using get_api_function = int (*)(const char* name, void* target);

/// One function of the API: the name the server registered it under, and where it goes.
struct binding {
    const char* name;
    void* target;  // the address of a function pointer of `api`
    bool required;
};

}  // namespace

bool bind(context* ctx, const char* name, int version) {
    // The server's context starts with the lookup function (RedisModule_Init in its header does
    // the same); copied out, as a function pointer is not an object pointer.
    get_api_function get_api = nullptr;
    std::memcpy(&get_api, static_cast<const void*>(ctx), sizeof get_api);

    functions& f = api;
    const binding bindings[] = {
        {"RedisModule_SetModuleAttribs", &f.set_module_attribs, true},
        {"RedisModule_IsModuleNameBusy", &f.is_module_name_busy, true},
        {"RedisModule_Alloc", &f.alloc, true},
        {"RedisModule_Calloc", &f.calloc, true},
        {"RedisModule_Free", &f.free, true},
        {"RedisModule_CreateCommand", &f.create_command, true},
        {"RedisModule_GetCommand", &f.get_command, true},
        {"RedisModule_SetCommandACLCategories", &f.set_command_acl_categories, false},
        {"RedisModule_WrongArity", &f.wrong_arity, true},
        {"RedisModule_ReplyWithLongLong", &f.reply_with_long_long, true},
        {"RedisModule_ReplyWithSimpleString", &f.reply_with_simple_string, true},
        {"RedisModule_ReplyWithError", &f.reply_with_error, true},
        {"RedisModule_ReplyWithArray", &f.reply_with_array, true},
        {"RedisModule_ReplySetArrayLength", &f.reply_set_array_length, true},
        {"RedisModule_ReplyWithStringBuffer", &f.reply_with_string_buffer, true},
        {"RedisModule_ReplyWithNull", &f.reply_with_null, true},
        {"RedisModule_ReplyWithMap", &f.reply_with_map, true},
        {"RedisModule_ReplyWithBool", &f.reply_with_bool, true},
        {"RedisModule_GetContextFlags", &f.get_context_flags, true},
        {"RedisModule_StringPtrLen", &f.string_ptr_len, true},
        {"RedisModule_StringToLongLong", &f.string_to_long_long, true},
        {"RedisModule_StringToDouble", &f.string_to_double, true},
        {"RedisModule_OpenKey", &f.open_key, true},
        {"RedisModule_CloseKey", &f.close_key, true},
        {"RedisModule_DeleteKey", &f.delete_key, true},
        {"RedisModule_KeyType", &f.key_type, true},
        {"RedisModule_ModuleTypeGetType", &f.module_type_get_type, true},
        {"RedisModule_ModuleTypeGetValue", &f.module_type_get_value, true},
        {"RedisModule_ModuleTypeSetValue", &f.module_type_set_value, true},
        {"RedisModule_CreateDataType", &f.create_data_type, true},
        {"RedisModule_SaveUnsigned", &f.save_unsigned, true},
        {"RedisModule_LoadUnsigned", &f.load_unsigned, true},
        {"RedisModule_SaveStringBuffer", &f.save_string_buffer, true},
        {"RedisModule_LoadStringBuffer", &f.load_string_buffer, true},
        {"RedisModule_IsIOError", &f.is_io_error, true},
        {"RedisModule_SetModuleOptions", &f.set_module_options, true},
        {"RedisModule_EmitAOF", &f.emit_aof, true},
        {"RedisModule_ReplicateVerbatim", &f.replicate_verbatim, true},
        {"RedisModule_DigestAddStringBuffer", &f.digest_add_string_buffer, true},
        {"RedisModule_DigestEndSequence", &f.digest_end_sequence, true},
        {"RedisModule_DefragAlloc", &f.defrag_alloc, false},
        {"RedisModule_Log", &f.log, true},
        {"RedisModule_LogIOError", &f.log_io_error, true},
    };
    for (const binding& b : bindings)
        if (get_api(b.name, b.target) != module_ok && b.required) return false;
    if (f.is_module_name_busy(name)) return false;
    f.set_module_attribs(ctx, name, version, api_version);
    return true;
}

}  // namespace bloomkit::redis_module
