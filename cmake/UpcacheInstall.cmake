# SPDX-License-Identifier: MIT
#
# Install rules; included from CMakeLists.txt.
#
#   lib/libupcache.a, lib/libupcache.so*      the libraries
#   include/upcache/*.h                       public headers (only these)
#   lib/pkgconfig/upcache.pc                  pkg-config
#   lib/cmake/upcache/upcacheConfig*.cmake    find_package(upcache):
#                                             upcache::upcache (shared),
#                                             upcache::upcache_static
#   bin/upcache-bench                         the benchmark, if built
#
# Everything but the benchmark is in install component "upcache"
# (`cmake --install build --component upcache`); the benchmark is
# component "bench".

set(UPC_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/upcache")

install(TARGETS ${UPC_INSTALL_TARGETS}
	EXPORT upcacheTargets
	ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT upcache
	LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT upcache
		NAMELINK_COMPONENT upcache
	RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT upcache
	INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(FILES ${UPC_PUBLIC_HEADERS}
	DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/upcache" COMPONENT upcache)
if(TARGET upcache-bench)
	install(TARGETS upcache-bench RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT bench)
endif()

install(EXPORT upcacheTargets
	NAMESPACE upcache::
	FILE upcacheTargets.cmake
	DESTINATION "${UPC_CMAKE_DIR}"
	COMPONENT upcache)
if(UPC_URING_FOUND)
	set(UPC_CONFIG_NEEDS_URING TRUE)
else()
	set(UPC_CONFIG_NEEDS_URING FALSE)
endif()
configure_package_config_file(
	"${PROJECT_SOURCE_DIR}/cmake/upcacheConfig.cmake.in"
	"${PROJECT_BINARY_DIR}/upcacheConfig.cmake"
	INSTALL_DESTINATION "${UPC_CMAKE_DIR}")
# 0.x: a minor release may break the API.
write_basic_package_version_file(
	"${PROJECT_BINARY_DIR}/upcacheConfigVersion.cmake"
	VERSION ${PROJECT_VERSION}
	COMPATIBILITY SameMinorVersion)
install(FILES
	"${PROJECT_BINARY_DIR}/upcacheConfig.cmake"
	"${PROJECT_BINARY_DIR}/upcacheConfigVersion.cmake"
	DESTINATION "${UPC_CMAKE_DIR}" COMPONENT upcache)

# upcache.pc.  The prefix is written at install time, so that
# `cmake --install --prefix DIR` gets a .pc file that points at DIR.
set(UPC_PC_REQUIRES_PRIVATE "liburcu-bp")
if(UPC_URING_FOUND)
	string(APPEND UPC_PC_REQUIRES_PRIVATE " liburing")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
	set(UPC_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
	set(UPC_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
	set(UPC_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
	set(UPC_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file("${PROJECT_SOURCE_DIR}/cmake/upcache.pc.in"
	"${PROJECT_BINARY_DIR}/upcache.pc.template" @ONLY)
install(CODE "
	file(READ \"${PROJECT_BINARY_DIR}/upcache.pc.template\" _upc_pc)
	string(REPLACE \"%PREFIX%\" \"\${CMAKE_INSTALL_PREFIX}\" _upc_pc \"\${_upc_pc}\")
	file(WRITE \"${PROJECT_BINARY_DIR}/pc-install/upcache.pc\" \"\${_upc_pc}\")
" COMPONENT upcache)
install(FILES "${PROJECT_BINARY_DIR}/pc-install/upcache.pc"
	DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig" COMPONENT upcache)
