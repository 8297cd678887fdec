// src/redis_module/command_table.cpp — see command_table.hpp.
#include "redis_module/command_table.hpp"

#include <cstring>

namespace bloomkit::redis_module {

void command_table::add(const char* name, command_function function, const char* flags) noexcept {
    if (api.create_command(ctx_, name, function, flags, 1, 1, 1) != module_ok) {
        api.log(ctx_, "warning", "bloomkit: cannot register %s (is another module serving it?)", name);
        complete_ = false;
        return;
    }
    if (api.set_command_acl_categories == nullptr) return;
    const bool writes = std::strstr(flags, "write") != nullptr;
    const bool fast = std::strstr(flags, "fast") != nullptr;
    const char* categories = writes ? (fast ? "write fast" : "write") : (fast ? "read fast" : "read");
    if (api.set_command_acl_categories(api.get_command(ctx_, name), categories) != module_ok)
        api.log(ctx_, "warning", "bloomkit: cannot set the ACL categories of %s", name);
}

}  // namespace bloomkit::redis_module
