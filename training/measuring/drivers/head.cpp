// rlm driver (training/measuring/drivers): LeetCode's headers and node types, before the solution
#include <bits/stdc++.h>
using namespace std;
