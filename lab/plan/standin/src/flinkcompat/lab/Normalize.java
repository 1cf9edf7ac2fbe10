package flinkcompat.lab;

import org.apache.flink.table.functions.ScalarFunction;

/**
 * A scalar function for case files that declare one (CREATE FUNCTION ... AS
 * 'flinkcompat.lab.Normalize'): Flink resolves the class when it plans a call, so a case whose
 * function is this class is planned by the lab like any other.
 */
public class Normalize extends ScalarFunction {
    public Double eval(Double x) {
        return x == null ? null : x / 100.0;
    }
}
