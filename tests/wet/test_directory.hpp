#pragma once
// A directory of its own for a test, empty when made and removed with
// everything in it when the test ends; listing() tells what a build left.

#include <filesystem>
#include <set>
#include <string>

#include <gtest/gtest.h>

namespace tcgen_test {

struct Directory {
    std::string path;  // ends with '/'
    explicit Directory(const std::string& name) : path(testing::TempDir() + name + "/") {
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    Directory(const Directory&) = delete;
    Directory& operator=(const Directory&) = delete;
    ~Directory() { std::filesystem::remove_all(path); }

    std::set<std::string> listing() const {
        std::set<std::string> names;
        for (const auto& entry : std::filesystem::directory_iterator(path)) {
            names.insert(entry.path().filename().string());
        }
        return names;
    }
};

}  // namespace tcgen_test
