package flinkcompat.lab;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.LookupTableSource;
import org.apache.flink.table.connector.source.lookup.AsyncLookupFunctionProvider;
import org.apache.flink.table.connector.source.lookup.LookupFunctionProvider;
import org.apache.flink.table.connector.source.lookup.PartialCachingLookupProvider;
import org.apache.flink.table.connector.source.lookup.cache.DefaultLookupCache;
import org.apache.flink.util.TimeUtils;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.functions.AsyncLookupFunction;
import org.apache.flink.table.functions.LookupFunction;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The restore lab's lookup source ({@code 'connector' = 'lab-lookup'}): for every key it finds
 * exactly one row, computed from the key, so that a looked-up value tells which key it was found
 * for. The row's key columns hold the key; every other INT or BIGINT column at position i holds
 * {@code key * 100 + i} (other types are null).
 *
 * <ul>
 *   <li>{@code 'lookup.async' = 'true'}: an asynchronous lookup (AsyncLookupFunctionProvider),
 *       else a synchronous one (LookupFunctionProvider);
 *   <li>{@code 'lookup.delay-ms' = 'N'}: an async lookup answers N ms late, so that rows are in
 *       flight (in the async operator's buffer) when a savepoint is taken;
 *   <li>{@code 'lookup.cache' = 'PARTIAL'} with {@code 'lookup.partial-cache.expire-after-write'}:
 *       a synchronous lookup through Flink's DefaultLookupCache (in memory, never in a savepoint).
 * </ul>
 */
public class LabLookupFactory implements DynamicTableSourceFactory {

    @Override
    public String factoryIdentifier() {
        return "lab-lookup";
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Collections.emptySet();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Collections.emptySet();
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        Map<String, String> options = context.getCatalogTable().getOptions();
        boolean async = Boolean.parseBoolean(options.getOrDefault("lookup.async", "false"));
        long delay = Long.parseLong(options.getOrDefault("lookup.delay-ms", "0"));
        String ttl =
                "PARTIAL".equals(options.get("lookup.cache"))
                        ? options.getOrDefault("lookup.partial-cache.expire-after-write", "1 min")
                        : null;
        ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
        List<String> kinds = new ArrayList<>();
        for (Column column : schema.getColumns()) {
            if (!column.isPhysical()) {
                continue;
            }
            LogicalTypeRoot root = column.getDataType().getLogicalType().getTypeRoot();
            kinds.add(root == LogicalTypeRoot.INTEGER ? "int" : root == LogicalTypeRoot.BIGINT ? "bigint" : "null");
        }
        return new Source(async, delay, ttl, kinds.toArray(new String[0]));
    }

    static final class Source implements LookupTableSource {
        private final boolean async;
        private final long delay;
        private final String ttl;
        private final String[] kinds;

        Source(boolean async, long delay, String ttl, String[] kinds) {
            this.async = async;
            this.delay = delay;
            this.ttl = ttl;
            this.kinds = kinds;
        }

        @Override
        public LookupRuntimeProvider getLookupRuntimeProvider(LookupContext context) {
            int[] keys = new int[context.getKeys().length];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = context.getKeys()[i][0];
            }
            if (async) {
                return AsyncLookupFunctionProvider.of(new AsyncRows(kinds, keys, delay));
            }
            if (ttl != null) {
                return PartialCachingLookupProvider.of(
                        new Rows(kinds, keys),
                        DefaultLookupCache.newBuilder()
                                .expireAfterWrite(TimeUtils.parseDuration(ttl))
                                .maximumSize(1000)
                                .build());
            }
            return LookupFunctionProvider.of(new Rows(kinds, keys));
        }

        @Override
        public DynamicTableSource copy() {
            return new Source(async, delay, ttl, kinds);
        }

        @Override
        public String asSummaryString() {
            return "lab-lookup";
        }
    }

    /** The one row for a key: key columns hold the key, INT/BIGINT column i holds key * 100 + i. */
    static Collection<RowData> rowFor(String[] kinds, int[] keys, RowData keyRow) {
        if (keyRow.isNullAt(0)) {
            return Collections.emptyList();
        }
        long key = keyRow.getInt(0);
        GenericRowData row = new GenericRowData(kinds.length);
        for (int i = 0; i < kinds.length; i++) {
            int at = -1;
            for (int k = 0; k < keys.length; k++) {
                if (keys[k] == i) {
                    at = k;
                }
            }
            long value = at >= 0 ? (keyRow.isNullAt(at) ? 0 : keyRow.getInt(at)) : key * 100 + i;
            if (at >= 0 && keyRow.isNullAt(at)) {
                return Collections.emptyList();
            }
            switch (kinds[i]) {
                case "int":
                    row.setField(i, (int) value);
                    break;
                case "bigint":
                    row.setField(i, value);
                    break;
                default:
                    row.setField(i, null);
            }
        }
        return Collections.singletonList(row);
    }

    public static final class Rows extends LookupFunction {
        private final String[] kinds;
        private final int[] keys;

        Rows(String[] kinds, int[] keys) {
            this.kinds = kinds;
            this.keys = keys;
        }

        @Override
        public Collection<RowData> lookup(RowData keyRow) {
            return rowFor(kinds, keys, keyRow);
        }
    }

    public static final class AsyncRows extends AsyncLookupFunction {
        private static ScheduledExecutorService timer;
        private final String[] kinds;
        private final int[] keys;
        private final long delay;

        AsyncRows(String[] kinds, int[] keys, long delay) {
            this.kinds = kinds;
            this.keys = keys;
            this.delay = delay;
        }

        private static synchronized ScheduledExecutorService timer() {
            if (timer == null) {
                timer = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "lab-lookup-timer");
                    t.setDaemon(true);
                    return t;
                });
            }
            return timer;
        }

        @Override
        public CompletableFuture<Collection<RowData>> asyncLookup(RowData keyRow) {
            CompletableFuture<Collection<RowData>> future = new CompletableFuture<>();
            Collection<RowData> rows = rowFor(kinds, keys, keyRow);
            timer().schedule(() -> future.complete(rows), delay, TimeUnit.MILLISECONDS);
            return future;
        }
    }
}
