// tests/install/user_program.cpp — what a user of an installed bloomkit compiles first: the
// install and package checks build it against the headers they put in place, and run it.
#include <bloomkit/bloomkit.hpp>

#include <string_view>

int main() {
    bloomkit::block_bloom_filter filter(1000, 0.01);
    filter.insert(std::string_view("installed"));
    return filter.contains(std::string_view("installed")) ? 0 : 1;
}
