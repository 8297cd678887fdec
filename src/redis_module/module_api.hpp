// src/redis_module/module_api.hpp — the part of the Redis module API this module calls, declared
// from the documented API (redis.io "Modules API reference"; Redis 7.0 src/redismodule.h for the
// C signatures and constants) rather than from a copied header.
//
// A module links against nothing of the server's: Redis hands RedisModule_OnLoad a context whose
// first field is a lookup function, and every API function is fetched by name through it. A name
// the running server does not know stays null, which is how the functions newer than Redis 7.0
// (ACL categories) are used only where they exist. Valkey registers every function under the
// RedisModule_ name too. docs/design/redis_module.md §6 gives each fact's source.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bloomkit::redis_module {

// The server's objects: opaque, only ever passed back to it.
struct context;
struct string;
struct key;
struct io;
struct digest;
struct data_type;
struct command;
struct defrag_context;

inline constexpr int module_ok = 0;
inline constexpr int module_err = 1;
inline constexpr int api_version = 1;

inline constexpr int open_read = 1;
inline constexpr int open_write = 2;

inline constexpr int keytype_empty = 0;
inline constexpr int keytype_module = 6;

/// ReplyWithArray's length when it is set afterwards with ReplySetArrayLength.
inline constexpr long postponed_length = -1;

/// GetContextFlags: the client speaks RESP3.
inline constexpr int context_flag_resp3 = 1 << 22;
/// SetModuleOptions: short RDB reads report an error instead of stopping the server.
inline constexpr int option_handle_io_errors = 1 << 0;

/// Redis 7.0's type-method table has version 4; later servers read the fields up to it.
inline constexpr std::uint64_t type_method_version = 4;

inline constexpr const char* wrongtype_message = "WRONGTYPE Operation against a key holding the wrong kind of value";

using command_function = int (*)(context*, string** argv, int argc);

/// RedisModuleTypeMethods up to version 4, field for field.
struct type_methods {
    std::uint64_t version = type_method_version;
    void* (*rdb_load)(io*, int encoding_version) = nullptr;
    void (*rdb_save)(io*, void* value) = nullptr;
    void (*aof_rewrite)(io*, string* key_name, void* value) = nullptr;
    std::size_t (*mem_usage)(const void* value) = nullptr;
    void (*digest)(digest*, void* value) = nullptr;
    void (*free)(void* value) = nullptr;
    int (*aux_load)(io*, int encoding_version, int when) = nullptr;
    void (*aux_save)(io*, int when) = nullptr;
    int aux_save_triggers = 0;
    std::size_t (*free_effort)(string* key_name, const void* value) = nullptr;
    void (*unlink)(string* key_name, const void* value) = nullptr;
    void* (*copy)(string* from_key, string* to_key, const void* value) = nullptr;
    int (*defrag)(defrag_context*, string* key_name, void** value) = nullptr;
    void* mem_usage2 = nullptr;
    void* free_effort2 = nullptr;
    void* unlink2 = nullptr;
    void* copy2 = nullptr;
};

/// The API functions, fetched once by bind().
struct functions {
    void (*set_module_attribs)(context*, const char* name, int version, int api_version) = nullptr;
    int (*is_module_name_busy)(const char* name) = nullptr;
    void* (*alloc)(std::size_t bytes) = nullptr;
    void* (*calloc)(std::size_t count, std::size_t bytes) = nullptr;
    void (*free)(void* pointer) = nullptr;
    int (*create_command)(context*, const char* name, command_function, const char* flags, int first_key, int last_key,
                          int key_step) = nullptr;
    command* (*get_command)(context*, const char* name) = nullptr;
    int (*set_command_acl_categories)(command*, const char* categories) = nullptr;  // 7.2+
    int (*wrong_arity)(context*) = nullptr;
    int (*reply_with_long_long)(context*, long long value) = nullptr;
    int (*reply_with_simple_string)(context*, const char* text) = nullptr;
    int (*reply_with_error)(context*, const char* text) = nullptr;
    int (*reply_with_array)(context*, long length) = nullptr;
    void (*reply_set_array_length)(context*, long length) = nullptr;
    int (*reply_with_string_buffer)(context*, const char* bytes, std::size_t length) = nullptr;
    int (*reply_with_null)(context*) = nullptr;
    int (*reply_with_map)(context*, long pairs) = nullptr;
    int (*reply_with_bool)(context*, int value) = nullptr;
    int (*get_context_flags)(context*) = nullptr;
    const char* (*string_ptr_len)(const string*, std::size_t* length) = nullptr;
    int (*string_to_long_long)(const string*, long long* value) = nullptr;
    int (*string_to_double)(const string*, double* value) = nullptr;
    key* (*open_key)(context*, string* name, int mode) = nullptr;
    void (*close_key)(key*) = nullptr;
    int (*delete_key)(key*) = nullptr;
    int (*key_type)(key*) = nullptr;
    data_type* (*module_type_get_type)(key*) = nullptr;
    void* (*module_type_get_value)(key*) = nullptr;
    int (*module_type_set_value)(key*, data_type*, void* value) = nullptr;
    data_type* (*create_data_type)(context*, const char* name, int encoding_version, type_methods*) = nullptr;
    void (*save_unsigned)(io*, std::uint64_t value) = nullptr;
    std::uint64_t (*load_unsigned)(io*) = nullptr;
    void (*save_string_buffer)(io*, const char* bytes, std::size_t length) = nullptr;
    char* (*load_string_buffer)(io*, std::size_t* length) = nullptr;
    int (*is_io_error)(io*) = nullptr;
    void (*set_module_options)(context*, int options) = nullptr;
    void (*emit_aof)(io*, const char* command_name, const char* format, ...) = nullptr;
    int (*replicate_verbatim)(context*) = nullptr;
    void (*digest_add_string_buffer)(digest*, const char* bytes, std::size_t length) = nullptr;
    void (*digest_end_sequence)(digest*) = nullptr;
    void* (*defrag_alloc)(defrag_context*, void* pointer) = nullptr;
    void (*log)(context*, const char* level, const char* format, ...) = nullptr;
    void (*log_io_error)(io*, const char* level, const char* format, ...) = nullptr;
};

/// The functions of the server that loaded the module (valid after bind()).
inline functions api;

/// Fetches every function through the context RedisModule_OnLoad received, then registers the
/// module under `name` (what RedisModule_Init does in the server's header). False when the server
/// lacks a function the module cannot do without, or another module has the name.
bool bind(context* ctx, const char* name, int version);

}  // namespace bloomkit::redis_module
