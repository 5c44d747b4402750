import java.util.*;
import java.util.function.*;
import java.util.stream.*;
import java.math.*;
