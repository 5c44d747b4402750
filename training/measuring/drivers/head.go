package main

import (
	rlmBufio "bufio"
	rlmJSON "encoding/json"
	rlmFmt "fmt"
	rlmMath "math"
	rlmOs "os"
	rlmReflect "reflect"
	rlmStrconv "strconv"
)
