package flinkcompat.lab;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.catalog.TableDistribution;
import org.apache.flink.table.connector.sink.abilities.SupportsBucketing;
import org.apache.flink.table.connector.sink.abilities.SupportsOverwrite;
import org.apache.flink.table.connector.sink.abilities.SupportsPartitioning;
import org.apache.flink.table.connector.sink.abilities.SupportsWritingMetadata;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.LookupTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.lookup.LookupFunctionProvider;
import org.apache.flink.table.connector.source.abilities.SupportsReadingMetadata;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.functions.LookupFunction;
import org.apache.flink.table.types.DataType;

import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The plan lab's stand-in connector ({@code 'connector' = 'plan-stand-in'}): a scan source, a
 * lookup source and a sink in one, that accepts any option and is never run. It exists so that
 * Flink's planner plans a script whose real connectors (Kafka, JDBC, CDC, ...) are not on the
 * class path, with the changelog mode of the real connector:
 *
 * <ul>
 *   <li>{@code 'stand-in.changelog' = 'insert' | 'upsert' | 'all'}: what the source produces
 *       (set by plan_lab.py from the real connector and format: upsert-kafka is upsert, a CDC
 *       format or connector is all, anything else insert-only);
 *   <li>metadata columns are readable and writable under the keys the table declares;
 *   <li>as a sink it accepts every change the query produces (retractions included), buckets
 *       (DISTRIBUTED BY), static partitions and INSERT OVERWRITE.
 * </ul>
 */
public class StandInFactory implements DynamicTableSourceFactory, DynamicTableSinkFactory {

    @Override
    public String factoryIdentifier() {
        return "plan-stand-in";
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
        String mode = context.getCatalogTable().getOptions().getOrDefault("stand-in.changelog", "insert");
        return new Source(mode, metadata(context.getCatalogTable().getResolvedSchema()));
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        return new Sink(metadata(context.getCatalogTable().getResolvedSchema()));
    }

    /** The metadata keys the table declares, with their types. */
    static Map<String, DataType> metadata(ResolvedSchema schema) {
        Map<String, DataType> keys = new LinkedHashMap<>();
        for (Column column : schema.getColumns()) {
            if (column instanceof Column.MetadataColumn) {
                Column.MetadataColumn m = (Column.MetadataColumn) column;
                keys.put(m.getMetadataKey().orElse(m.getName()), m.getDataType());
            }
        }
        return keys;
    }

    static final class Source implements ScanTableSource, LookupTableSource, SupportsReadingMetadata {
        private final String mode;
        private final Map<String, DataType> metadata;

        Source(String mode, Map<String, DataType> metadata) {
            this.mode = mode;
            this.metadata = metadata;
        }

        @Override
        public ChangelogMode getChangelogMode() {
            switch (mode) {
                case "upsert":
                    return ChangelogMode.upsert();
                case "all":
                    return ChangelogMode.all();
                default:
                    return ChangelogMode.insertOnly();
            }
        }

        @Override
        public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
            // Planned, never run: the planner only asks whether the source is bounded.
            return new ScanRuntimeProvider() {
                @Override
                public boolean isBounded() {
                    return false;
                }
            };
        }

        @Override
        public LookupRuntimeProvider getLookupRuntimeProvider(LookupContext context) {
            return LookupFunctionProvider.of(new NoRows());
        }

        @Override
        public Map<String, DataType> listReadableMetadata() {
            return metadata;
        }

        @Override
        public void applyReadableMetadata(List<String> keys, DataType producedDataType) {}

        @Override
        public DynamicTableSource copy() {
            return new Source(mode, metadata);
        }

        @Override
        public String asSummaryString() {
            return "plan-stand-in";
        }
    }

    static final class Sink
            implements DynamicTableSink,
                    SupportsWritingMetadata,
                    SupportsBucketing,
                    SupportsPartitioning,
                    SupportsOverwrite {
        private final Map<String, DataType> metadata;

        Sink(Map<String, DataType> metadata) {
            this.metadata = metadata;
        }

        @Override
        public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
            // Every change the query produces, as Flink's test sink (`values`) takes it: a sink
            // that asks for upserts would refuse queries whose upsert key is not its key.
            return requestedMode;
        }

        @Override
        public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
            throw new UnsupportedOperationException("the plan lab's stand-in sink is never run");
        }

        @Override
        public Map<String, DataType> listWritableMetadata() {
            return metadata;
        }

        @Override
        public void applyWritableMetadata(List<String> keys, DataType consumedDataType) {}

        @Override
        public Set<TableDistribution.Kind> listAlgorithms() {
            return EnumSet.allOf(TableDistribution.Kind.class);
        }

        @Override
        public boolean requiresBucketCount() {
            return false;
        }

        @Override
        public void applyStaticPartition(Map<String, String> partition) {}

        @Override
        public void applyOverwrite(boolean overwrite) {}

        @Override
        public DynamicTableSink copy() {
            return new Sink(metadata);
        }

        @Override
        public String asSummaryString() {
            return "plan-stand-in";
        }
    }

    /** A lookup function that finds nothing: planned, never run. */
    public static final class NoRows extends LookupFunction {
        @Override
        public Collection<RowData> lookup(RowData keyRow) {
            return Collections.emptyList();
        }
    }
}
