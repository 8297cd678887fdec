/*
 * GuavaTool: the reference implementation that bloomkit's Guava interop tests
 * compare against. It drives the real com.google.common.hash.BloomFilter from
 * Debian's Guava (libguava-java 31.1, /usr/share/java/guava.jar) so the tests
 * can check that bloomkit writes byte-identical streams, answers membership
 * queries the same way, and that Guava accepts (or refuses) what bloomkit
 * writes. The format is the compact writeTo/readFrom stream, not Java
 * serialization.
 *
 * Usage (either form):
 *   javac -cp /usr/share/java/guava.jar -d DIR GuavaTool.java
 *   java -cp /usr/share/java/guava.jar:DIR GuavaTool COMMAND ARGS...
 * or, JDK 11+ single-file launch (no javac step):
 *   java -cp /usr/share/java/guava.jar GuavaTool.java COMMAND ARGS...
 *
 * Commands:
 *   create OUT FUNNEL N P [mitz64|mitz32]
 *       Read keys from stdin, BloomFilter.create(funnel, N, P[, strategy]),
 *       put each key, writeTo(OUT). Default strategy mitz64 (ordinal 1).
 *       mitz32 (ordinal 0) goes through the package-private
 *       create(Funnel, long, double, Strategy) by reflection.
 *   check FILE FUNNEL
 *       readFrom(FILE); for each stdin key print "1" or "0" (mightContain).
 *   stats FILE FUNNEL
 *       readFrom(FILE); print "k=", "bits=" (numLongs*64), "expected_fpp="
 *       (Double.toString) and "approximate_count=" (or "infinite" when Guava
 *       throws ArithmeticException, i.e. every bit is set).
 *   merge OUT FUNNEL A B
 *       readFrom A and B, a.putAll(b), writeTo(OUT). Guava's compatibility
 *       errors exit 2 with its message; OUT is not written then.
 *   read FILE FUNNEL
 *       readFrom only; exit 0 if Guava accepts the stream, otherwise exit 2
 *       and print the exception (and its causes) on stderr.
 *
 * FUNNEL:
 *   utf8   Funnels.stringFunnel(UTF_8); line bytes decoded as UTF-8 to a String
 *   chars  Funnels.unencodedCharsFunnel(); line decoded as UTF-8 to a String
 *   int    Funnels.integerFunnel(); Integer.parseInt(line)
 *   long   Funnels.longFunnel(); Long.parseLong(line)
 *   bytes  Funnels.byteArrayFunnel(); the line's raw bytes
 *
 * Keys: stdin is read as raw bytes and split on '\n'. A final line without
 * '\n' counts; empty input has no keys; '\r' is NOT stripped. Malformed UTF-8
 * is decoded by Java's default replacement (U+FFFD), so tests that need exact
 * bytes should use the bytes funnel.
 *
 * Exit status: 0 on success, 2 with a message on stderr for bad usage or any
 * error (including Guava exceptions and OutOfMemoryError on hostile sizes).
 */

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnel;
import com.google.common.hash.Funnels;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

public final class GuavaTool {

  private static final String USAGE =
      "usage: GuavaTool create OUT FUNNEL N P [mitz64|mitz32]\n"
          + "       GuavaTool check FILE FUNNEL\n"
          + "       GuavaTool stats FILE FUNNEL\n"
          + "       GuavaTool merge OUT FUNNEL A B\n"
          + "       GuavaTool read FILE FUNNEL\n"
          + "FUNNEL: utf8 | chars | int | long | bytes   (keys on stdin, one per line)";

  /** Bad usage or a failure we report ourselves. */
  private static final class UsageError extends Exception {
    private static final long serialVersionUID = 1L;

    UsageError(String msg) {
      super(msg);
    }
  }

  /** A funnel plus how one stdin line becomes the object it accepts. */
  private static final class Kind {
    final Funnel<Object> funnel;
    final String name;

    @SuppressWarnings("unchecked")
    Kind(String name, Funnel<?> funnel) {
      this.name = name;
      this.funnel = (Funnel<Object>) funnel;
    }

    Object key(byte[] line) throws UsageError {
      switch (name) {
        case "utf8":
        case "chars":
          return new String(line, StandardCharsets.UTF_8);
        case "int":
          try {
            return Integer.parseInt(new String(line, StandardCharsets.UTF_8));
          } catch (NumberFormatException e) {
            throw new UsageError("bad int key: " + e.getMessage());
          }
        case "long":
          try {
            return Long.parseLong(new String(line, StandardCharsets.UTF_8));
          } catch (NumberFormatException e) {
            throw new UsageError("bad long key: " + e.getMessage());
          }
        default: // bytes
          return line;
      }
    }
  }

  private static Kind kind(String name) throws UsageError {
    switch (name) {
      case "utf8":
        return new Kind(name, Funnels.stringFunnel(StandardCharsets.UTF_8));
      case "chars":
        return new Kind(name, Funnels.unencodedCharsFunnel());
      case "int":
        return new Kind(name, Funnels.integerFunnel());
      case "long":
        return new Kind(name, Funnels.longFunnel());
      case "bytes":
        return new Kind(name, Funnels.byteArrayFunnel());
      default:
        throw new UsageError("unknown funnel '" + name + "' (utf8|chars|int|long|bytes)");
    }
  }

  private interface LineSink {
    void accept(byte[] line) throws Exception;
  }

  /** Splits raw stdin on '\n'; a final unterminated line counts; no '\r' stripping. */
  private static void forEachLine(InputStream in, LineSink sink) throws Exception {
    byte[] chunk = new byte[1 << 16];
    byte[] cur = new byte[256];
    int len = 0;
    boolean pending = false; // bytes seen since the last '\n'
    int n;
    while ((n = in.read(chunk)) > 0) {
      int start = 0;
      for (int i = 0; i < n; i++) {
        if (chunk[i] == '\n') {
          int add = i - start;
          byte[] line;
          if (len == 0) {
            line = Arrays.copyOfRange(chunk, start, i);
          } else {
            line = Arrays.copyOf(cur, len + add);
            System.arraycopy(chunk, start, line, len, add);
            len = 0;
          }
          sink.accept(line);
          start = i + 1;
          pending = false;
        }
      }
      int rest = n - start;
      if (rest > 0) {
        if (len + rest > cur.length) {
          cur = Arrays.copyOf(cur, Math.max(cur.length * 2, len + rest));
        }
        System.arraycopy(chunk, start, cur, len, rest);
        len += rest;
        pending = true;
      }
    }
    if (pending) {
      sink.accept(Arrays.copyOf(cur, len));
    }
  }

  private static BloomFilter<Object> load(String path, Kind k) throws IOException {
    try (InputStream in = new BufferedInputStream(new FileInputStream(path))) {
      return BloomFilter.readFrom(in, k.funnel);
    }
  }

  private static void save(BloomFilter<Object> bf, String path) throws IOException {
    try (OutputStream out = new BufferedOutputStream(new FileOutputStream(path))) {
      bf.writeTo(out);
    }
  }

  private static Object reflectField(BloomFilter<?> bf, String name) throws Exception {
    Field f = BloomFilter.class.getDeclaredField(name);
    f.setAccessible(true);
    return f.get(bf);
  }

  private static long bitSize(BloomFilter<?> bf) throws Exception {
    Method m = BloomFilter.class.getDeclaredMethod("bitSize");
    m.setAccessible(true);
    return (Long) m.invoke(bf);
  }

  @SuppressWarnings("unchecked")
  private static BloomFilter<Object> createMitz32(Kind k, long n, double p) throws Throwable {
    Class<?> strategies = Class.forName("com.google.common.hash.BloomFilterStrategies");
    Class<?> strategyIface = Class.forName("com.google.common.hash.BloomFilter$Strategy");
    Field f = strategies.getDeclaredField("MURMUR128_MITZ_32");
    f.setAccessible(true);
    Object mitz32 = f.get(null);
    Method create =
        BloomFilter.class.getDeclaredMethod(
            "create", Funnel.class, long.class, double.class, strategyIface);
    create.setAccessible(true);
    try {
      return (BloomFilter<Object>) create.invoke(null, k.funnel, n, p, mitz32);
    } catch (InvocationTargetException e) {
      throw e.getCause(); // e.g. Guava's IllegalArgumentException for bad N/P
    }
  }

  private static void need(String[] a, int min, int max) throws UsageError {
    if (a.length < min || a.length > max) {
      throw new UsageError("wrong number of arguments for '" + a[0] + "'");
    }
  }

  private static void run(String[] a) throws Throwable {
    if (a.length == 0) {
      throw new UsageError("no command");
    }
    switch (a[0]) {
      case "create":
        {
          need(a, 5, 6);
          Kind k = kind(a[2]);
          long n;
          double p;
          try {
            n = Long.parseLong(a[3]);
            p = Double.parseDouble(a[4]);
          } catch (NumberFormatException e) {
            throw new UsageError("bad N or P: " + e.getMessage());
          }
          String strat = a.length == 6 ? a[5] : "mitz64";
          BloomFilter<Object> bf;
          if (strat.equals("mitz64")) {
            bf = BloomFilter.create(k.funnel, n, p);
          } else if (strat.equals("mitz32")) {
            bf = createMitz32(k, n, p);
          } else {
            throw new UsageError("unknown strategy '" + strat + "' (mitz64|mitz32)");
          }
          final BloomFilter<Object> f = bf;
          forEachLine(new BufferedInputStream(System.in), line -> f.put(k.key(line)));
          save(bf, a[1]);
          break;
        }
      case "check":
        {
          need(a, 3, 3);
          Kind k = kind(a[2]);
          BloomFilter<Object> bf = load(a[1], k);
          BufferedOutputStream out = new BufferedOutputStream(System.out, 1 << 16);
          byte[] one = {'1', '\n'};
          byte[] zero = {'0', '\n'};
          try {
            forEachLine(
                new BufferedInputStream(System.in),
                line -> out.write(bf.mightContain(k.key(line)) ? one : zero));
          } finally {
            out.flush();
          }
          break;
        }
      case "stats":
        {
          need(a, 3, 3);
          Kind k = kind(a[2]);
          BloomFilter<Object> bf = load(a[1], k);
          String count;
          try {
            count = Long.toString(bf.approximateElementCount());
          } catch (ArithmeticException e) {
            count = "infinite";
          }
          StringBuilder sb = new StringBuilder();
          sb.append("k=").append(reflectField(bf, "numHashFunctions")).append('\n');
          sb.append("bits=").append(bitSize(bf)).append('\n');
          sb.append("expected_fpp=").append(Double.toString(bf.expectedFpp())).append('\n');
          sb.append("approximate_count=").append(count).append('\n');
          System.out.print(sb);
          System.out.flush();
          break;
        }
      case "merge":
        {
          need(a, 5, 5);
          Kind k = kind(a[2]);
          BloomFilter<Object> x = load(a[3], k);
          BloomFilter<Object> y = load(a[4], k);
          x.putAll(y); // IllegalArgumentException on incompatible filters
          save(x, a[1]);
          break;
        }
      case "read":
        {
          need(a, 3, 3);
          load(a[1], kind(a[2]));
          break;
        }
      default:
        throw new UsageError("unknown command '" + a[0] + "'");
    }
  }

  private static String describe(Throwable t) {
    StringBuilder sb = new StringBuilder(t.toString());
    for (Throwable c = t.getCause(); c != null; c = c.getCause()) {
      sb.append("; caused by ").append(c.toString());
    }
    return sb.toString();
  }

  public static void main(String[] args) {
    try {
      run(args);
    } catch (UsageError e) {
      System.out.flush();
      System.err.println("GuavaTool: " + e.getMessage());
      if (args.length == 0 || e.getMessage().startsWith("wrong number")
          || e.getMessage().startsWith("unknown command") || e.getMessage().equals("no command")) {
        System.err.println(USAGE);
      }
      System.exit(2);
    } catch (Throwable t) {
      System.out.flush();
      System.err.println("GuavaTool: " + describe(t));
      System.exit(2);
    }
    System.out.flush();
    System.exit(0);
  }
}
