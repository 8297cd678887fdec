// src/redis_module/module_error.hpp — a command's failure, as the error reply the client sees.
#pragma once

#include "bloomkit/error.hpp"

namespace bloomkit::redis_module {

/// Thrown by the filters' commands with the reply's exact text: RedisBloom's where it has one
/// ("ERR not found", "ERR non scaling filter is full", the bare "Filter is full"), ours beginning
/// with "ERR" where it has none. The command turns it into the error reply.
class module_error : public error {
public:
    using error::error;
};

}  // namespace bloomkit::redis_module
