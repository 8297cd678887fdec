// src/redis_module/command_table.hpp — registering the module's commands with the server: name,
// flags, the key at argument 1 (so Cluster routes them by it), and on servers that have the API
// (Redis 7.2+) the ACL categories their flags imply; Redis 7.0 puts module commands in @all only.
#pragma once

#include "redis_module/module_api.hpp"

namespace bloomkit::redis_module {

class command_table {
public:
    explicit command_table(context* ctx) noexcept : ctx_(ctx) {}

    /// Registers `name`; `flags` are Redis's command flags ("write deny-oom", "readonly fast").
    void add(const char* name, command_function function, const char* flags) noexcept;

    /// False when any command could not be registered (a name another module holds).
    [[nodiscard]] bool complete() const noexcept { return complete_; }

private:
    context* ctx_;
    bool complete_ = true;
};

void register_bloom_commands(command_table& table);
void register_cuckoo_commands(command_table& table);

}  // namespace bloomkit::redis_module
