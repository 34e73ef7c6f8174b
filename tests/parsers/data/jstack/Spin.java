public class Spin {
    static volatile long sink;
    static void leaf() { for (int i = 0; i < 1000000; i++) sink += i; }
    static void work() { while (true) leaf(); }
    public static void main(String[] a) throws Exception {
        Thread t = new Thread(Spin::work, "worker-1");
        t.start();
        Object o = new Object();
        synchronized (o) { o.wait(); }
    }
}
