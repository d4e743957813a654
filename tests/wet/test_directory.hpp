#pragma once
// A directory of its own for a test, empty when made and removed with
// everything in it when the test ends; listing() tells what a build left.
// A path of its own for a test's file: ctest runs a file's tests side by
// side, so two tests writing one name would read each other's bytes.

#include <filesystem>
#include <set>
#include <string>

#include <gtest/gtest.h>

namespace tcgen_test {

// TempDir()/Suite.Test.name: no other test writes it.
inline std::string test_file_path(const std::string& name) {
    const testing::TestInfo* test = testing::UnitTest::GetInstance()->current_test_info();
    return testing::TempDir() + test->test_suite_name() + "." + test->name() + "." + name;
}

// TempDir()/Suite.Test.name/: its own whatever name another test gives.
struct Directory {
    std::string path;  // ends with '/'
    explicit Directory(const std::string& name) : path(test_file_path(name) + "/") {
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
