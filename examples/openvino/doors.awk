# Counts the OpenCL build doors in examples/sycl/trace.c's output: each
# clBuildProgram by how its program was made (the latest creation of that
# handle before the build).  Prints "source N", "binary N", "il N", "other N".
/ clCreateProgramWith(Source|Binary|IL) / {
	kind = $3; sub(/clCreateProgramWith/, "", kind)
	for (i = 1; i < NF; i++) if ($i == "->") made[$(i + 1)] = tolower(kind)
}
/ clBuildProgram 0x/ { k = ($4 in made) ? made[$4] : "other"; n[k]++ }
END { split("source binary il other", ks, " "); for (i = 1; i <= 4; i++) printf "%s %d\n", ks[i], n[ks[i]] + 0 }
