// The names --name and --namespace (or the spec's file name standing in for
// them) must have to be spelled in generated C++.

#include <gtest/gtest.h>

#include "generator/emitters/cpp_names.hpp"

namespace tcgen {
namespace {

TEST(CppNames, IdentifiersAreLettersDigitsAndUnderscoresNotStartingWithADigit) {
    for (const char* name : {"a", "_", "node_values", "Vpc3", "_9"}) {
        EXPECT_TRUE(is_identifier(name)) << name;
    }
    for (const char* name : {"", "9lives", "vpc3-x", "a b", "a::b", "caf\xc3\xa9"}) {
        EXPECT_FALSE(is_identifier(name)) << name;
    }
}

TEST(CppNames, NamespacesAreIdentifiersJoinedByTwoColons) {
    for (const char* name : {"vpc3", "tcgen::wet", "a::b::c"}) {
        EXPECT_TRUE(is_namespace_name(name)) << name;
    }
    for (const char* name : {"", "::a", "a::", "a:::b", "a::::b", "a:b", "a::9b", "vpc3-x"}) {
        EXPECT_FALSE(is_namespace_name(name)) << name;
    }
}

}  // namespace
}  // namespace tcgen
